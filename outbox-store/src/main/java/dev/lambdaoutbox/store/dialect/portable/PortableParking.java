package dev.lambdaoutbox.store.dialect.portable;

import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.deadletter.ParkedKey;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The parked-keys statements the reprocessor runs, the same in every dialect apart from how a time
 * is written: a parked key read, listed and counted, and released. (Parking itself, which the
 * poller runs before a head is dead-lettered, is each dialect's own.)
 *
 * <p>A parked aggregate's events are recognised by its row in the parked-keys table, which the
 * ordered claim skips. Those that were in the outbox when it parked are also marked: their {@code
 * next_attempt_at} is {@link #PARKED_UNTIL}, so that no claim walks past them, and their last error
 * says behind which dead letter they wait. Releasing the key makes them due again.
 */
public final class PortableParking {
  /** The due time of a parked event: never, until its key is released. */
  public static final Instant PARKED_UNTIL = Instant.parse("9999-01-01T00:00:00Z");

  /** The last_error_code of an event parked behind its dead-lettered head. */
  public static final String PARKED = "PARKED";

  private final String selectByDeadLetter;
  private final String list;
  private final String count;
  private final String restoreHead;
  private final String unpark;
  private final String delete;

  public PortableParking(SqlTemplate sql) {
    String select =
        """
        SELECT k.aggregate_type, k.aggregate_id, k.dead_letter_id, k.head_seq, k.parked_events,
          {utc:k.parked_at} AS parked_at,
          (SELECT count(*) FROM {messages} w
           WHERE w.aggregate_type = k.aggregate_type AND w.aggregate_id = k.aggregate_id
             AND w.status = 'PENDING') AS waiting_events
        FROM {parkedKeys} k
        """;
    this.selectByDeadLetter = sql.fill(select + "WHERE k.dead_letter_id = :id");
    this.list =
        sql.fill(select + "ORDER BY k.parked_at, k.aggregate_type, k.aggregate_id LIMIT :limit");
    this.count =
        sql.fill(
            "SELECT count(*) AS row_count FROM (SELECT 1 AS one FROM {parkedKeys} LIMIT {cap})"
                + " capped",
            "cap",
            DeadLetterStore.COUNT_CAP + 1);
    this.restoreHead =
        sql.fill("UPDATE {messages} SET seq = :seq WHERE id = :id AND status = 'PENDING'");
    this.unpark =
        sql.fill(
            """
            UPDATE {messages}
            SET next_attempt_at = {at:now}, last_error_code = NULL, last_error_reason = NULL
            WHERE aggregate_type = :type AND aggregate_id = :aggregateId
              AND status = 'PENDING' AND next_attempt_at >= {at:parkedUntil}
            """);
    this.delete =
        sql.fill(
            "DELETE FROM {parkedKeys} WHERE aggregate_type = :type AND aggregate_id = :aggregateId");
  }

  /** The key parked behind dead letter {@code deadLetterId}, or null; with {@code lock}, locked. */
  public ParkedKey parkedKey(SqlSession s, UUID deadLetterId, boolean lock) {
    List<Row> rows =
        s.query(
            selectByDeadLetter + (lock ? " FOR UPDATE" : ""), Params.of().uuid("id", deadLetterId));
    return rows.isEmpty() ? null : read(rows.get(0));
  }

  /** Up to {@code limit} parked keys, longest parked first, with their waiting events. */
  public List<ParkedKey> parkedKeys(SqlSession s, int limit) {
    return s.query(list, Params.of().integer("limit", limit)).stream()
        .map(PortableParking::read)
        .toList();
  }

  public long countParkedKeys(SqlSession s) {
    return s.query(count, Params.none()).get(0).longValue("row_count");
  }

  /**
   * Releases a parked key: with {@code restoreHead}, the replayed head (back in the outbox under
   * the dead letter's id) takes its old {@code seq} again, ahead of the events behind it; the
   * events marked parked become due at {@code now}; the parked-keys row goes. Returns how many
   * events were unmarked.
   */
  public int release(SqlSession s, ParkedKey key, boolean restoreHead, Instant now) {
    if (restoreHead) {
      s.update(
          this.restoreHead,
          Params.of().longValue("seq", key.headSeq()).uuid("id", key.deadLetterId()));
    }
    Params params = keyParams(key).timestamp("now", now).timestamp("parkedUntil", PARKED_UNTIL);
    int unparked = s.update(unpark, params);
    s.update(delete, keyParams(key));
    return unparked;
  }

  /** The reason a parked event's row shows: behind which dead letter it waits. */
  public static String reason(Object deadLetterId) {
    return "parked behind dead letter "
        + deadLetterId
        + ", the oldest event of its aggregate; replay or discard it to release them";
  }

  private static Params keyParams(ParkedKey key) {
    return Params.of().text("type", key.aggregateType()).text("aggregateId", key.aggregateId());
  }

  private static ParkedKey read(Row row) {
    return new ParkedKey(
        row.text("aggregate_type"),
        row.text("aggregate_id"),
        row.uuid("dead_letter_id"),
        row.longValue("head_seq"),
        row.integer("parked_events"),
        row.instant("parked_at"),
        row.longValue("waiting_events"));
  }
}
