package dev.lambdaoutbox.store.internal.rows;

/**
 * What "a row waits for its time" means, for every statement that gives a row a due time: a PENDING
 * row whose {@code not_before} is later than now, its attempts at 0. Its {@code next_attempt_at} is
 * the same time, so the claim (which reads only {@code next_attempt_at}) does not take it before;
 * with ordering on, its aggregate's later rows wait behind it; the age metric counts it from then
 * ({@code MIN(not_before)}), not from its creation; the reprocessor's {@code list} shows it.
 *
 * <p>A statement that puts a row (back) into the outbox to go at a time of its own, pacing a
 * replay, a re-drive or a rewind, sets both columns with these pieces, so that the row is not taken
 * for late while it waits. Backoff and leases move {@code next_attempt_at} only: a row that failed
 * after its time is late from that time on.
 */
public final class DueTimes {
  /** The columns an INSERT names for a row's due time. */
  public static final String COLUMNS = "next_attempt_at, not_before";

  private DueTimes() {}

  /**
   * The values of {@link #COLUMNS} in an INSERT, for the timestamp parameter {@code :param}, in
   * {@link dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate} syntax.
   */
  public static String values(String param) {
    return "{at:" + param + "}, {at:" + param + "}";
  }

  /**
   * The assignments of an UPDATE that puts a PENDING row back to wait for {@code :param}: its
   * attempts at 0, leased to no one, waiting for no destination.
   */
  public static String putBack(String param) {
    return "retry_count = 0, next_attempt_at = {at:"
        + param
        + "}, not_before = {at:"
        + param
        + "}, locked_by = NULL, locked_until = NULL, waiting_for = NULL";
  }
}
