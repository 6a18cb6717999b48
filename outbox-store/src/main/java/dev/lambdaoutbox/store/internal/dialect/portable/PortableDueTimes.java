package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.model.waiting.WaitingForTime;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;

/**
 * The rows waiting for their time ({@link dev.lambdaoutbox.store.internal.rows.DueTimes}), the same
 * in every dialect apart from how a time is written: they are the last PENDING entries of the
 * unpublished index (PostgreSQL: not_before, partial; MySQL: status, not_before), counted and read
 * from the first one due, each no further than its bound.
 */
public final class PortableDueTimes {
  private final String count;
  private final String next;

  public PortableDueTimes(SqlTemplate sql) {
    // The list names its time due_at: an output column named not_before would be what ORDER BY
    // not_before sorts by (the time as text), a sort of every waiting row instead of a walk of
    // the index.
    this.count =
        sql.fill(
            """
            SELECT count(*) AS row_count FROM (
              SELECT not_before FROM {messages}
              WHERE status = 'PENDING' AND not_before > {at:now}
              ORDER BY not_before LIMIT :cap) w
            """);
    this.next =
        sql.fill(
            """
            SELECT id, aggregate_type, aggregate_id, event_type, {utc:not_before} AS due_at
            FROM {messages}
            WHERE status = 'PENDING' AND not_before > {at:now}
            ORDER BY not_before LIMIT :limit
            """);
  }

  /** How many rows wait for a time after {@code now}, counted no further than {@code cap}. */
  public long count(SqlSession s, Instant now, int cap) {
    return s.query(count, countParams(now, cap)).get(0).longValue("row_count");
  }

  /** The first {@code limit} rows to come due after {@code now}, in due order. */
  public List<WaitingForTime.Due> next(SqlSession s, Instant now, int limit) {
    return s.query(next, nextParams(now, limit)).stream().map(PortableDueTimes::read).toList();
  }

  /** The statement {@link #count} runs, with {@code :now} and {@code :cap}. */
  public String countSql() {
    return count;
  }

  /** The statement {@link #next} runs, with {@code :now} and {@code :limit}. */
  public String nextSql() {
    return next;
  }

  static Params countParams(Instant now, int cap) {
    return Params.of().timestamp("now", now).integer("cap", cap);
  }

  static Params nextParams(Instant now, int limit) {
    return Params.of().timestamp("now", now).integer("limit", limit);
  }

  private static WaitingForTime.Due read(Row row) {
    return new WaitingForTime.Due(
        row.uuid("id"),
        row.text("aggregate_type"),
        row.text("aggregate_id"),
        row.text("event_type"),
        row.instant("due_at"));
  }
}
