package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.rows.Results;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;

/**
 * What alarms watch and what the poller counts as work, the same in every dialect apart from how a
 * time is written: the backlog statement and the due count.
 */
public final class PortableBacklog {
  private final String backlog;
  private final String countDue;
  private final String countDueUnparked;

  public PortableBacklog(SqlTemplate sql) {
    // The time the oldest unpublished row might go from (not_before: its creation, or the later
    // time it waits for, so that a row waiting for its time is not late): MIN over the partial
    // (PostgreSQL) or (status, not_before) (MySQL) unpublished index, one index entry. The dead
    // letters counted
    // no further than the cap plus one, the destination health table, which is small, and the
    // parked keys and their events (along the key index), each counted no further than its cap;
    // the rows waiting for a destination marked misconfigured, looked up along the waiting index
    // from each such destination (the join proves the partial index's waiting_for IS NOT NULL to
    // PostgreSQL; MySQL, which may otherwise walk every PENDING row when many wait, is told), no
    // further than their cap.
    this.backlog =
        sql.fill(
            """
            SELECT
              {utc:(SELECT MIN(not_before) FROM {messages} WHERE status = 'PENDING')}
                AS oldest_not_before,
              (SELECT count(*) FROM (SELECT 1 AS one FROM {deadLetters} LIMIT {deadLetterCap}) capped)
                AS dead_letters,
              (SELECT count(*) FROM {destinationHealth} WHERE next_probe_at >= {at:staleBefore})
                AS destinations_down,
              (SELECT count(*) FROM {destinationHealth}
               WHERE state = 'MISCONFIGURED' AND next_probe_at >= {at:staleBefore})
                AS destinations_misconfigured,
              (SELECT count(*) FROM {destinationHealth} WHERE next_probe_at < {at:staleBefore})
                AS stale_destinations,
              (SELECT count(*) FROM (
                 SELECT 1 AS one FROM {destinationHealth} h
                 JOIN {messages} w{index:{messages}_waiting_ix}
                   ON w.waiting_for = h.destination_key AND w.status = 'PENDING'
                 WHERE h.state = 'MISCONFIGURED' LIMIT {waitingCap}) waiting)
                AS waiting_on_misconfigured,
              (SELECT count(*) FROM (SELECT 1 AS one FROM {parkedKeys} LIMIT {parkedCap}) capped_keys)
                AS parked_keys,
              (SELECT count(*) FROM (
                 SELECT 1 AS one FROM {parkedKeys} pk
                 JOIN {messages} pm ON pm.aggregate_type = pk.aggregate_type
                   AND pm.aggregate_id = pk.aggregate_id AND pm.status = 'PENDING'
                 LIMIT {parkedCap}) capped_events)
                AS parked_events
            """,
            "deadLetterCap",
            Backlog.DEAD_LETTER_COUNT_CAP + 1,
            "waitingCap",
            Backlog.WAITING_COUNT_CAP + 1,
            "parkedCap",
            Backlog.PARKED_COUNT_CAP + 1);
    this.countDue =
        sql.fill(
            """
            SELECT COUNT(*) AS due FROM (
              SELECT w.id FROM {messages} w
              WHERE w.status = 'PENDING' AND w.next_attempt_at <= {at:now}
              ORDER BY w.next_attempt_at, w.id LIMIT :limit) due
            """);
    // Of the :scan oldest due rows, those of aggregates not parked: a parked aggregate's events,
    // however many are due, cost no more than their share of the scan.
    this.countDueUnparked =
        sql.fill(
            """
            SELECT COUNT(*) AS due FROM (
              SELECT f.id FROM (
                SELECT w.id, w.aggregate_type, w.aggregate_id FROM {messages} w
                WHERE w.status = 'PENDING' AND w.next_attempt_at <= {at:now}
                ORDER BY w.next_attempt_at, w.id LIMIT :scan) f
              WHERE NOT EXISTS (SELECT 1 FROM {parkedKeys} k
                WHERE k.aggregate_type = f.aggregate_type AND k.aggregate_id = f.aggregate_id)
              LIMIT :limit) due
            """);
  }

  /**
   * What alarms watch, in one statement: the earliest time a PENDING row may go from, its creation
   * or the later time it waits for (along the unpublished index: one index entry, no table read),
   * the dead letters counted up to {@link Backlog#DEAD_LETTER_COUNT_CAP} plus one, and the
   * destinations down, misconfigured and stale ({@code next_probe_at} before {@code staleBefore}).
   */
  public Backlog backlog(SqlSession s, Instant now, Instant staleBefore) {
    return Results.backlog(
        s.query(backlog, Params.of().timestamp("staleBefore", staleBefore)).get(0), now);
  }

  /** The statement {@link #backlog} runs, with the named parameter {@code :staleBefore}. */
  public String backlogSql() {
    return backlog;
  }

  /**
   * Due rows, counted along the due index up to {@code limit}; with {@code ordered}, only those of
   * aggregates that are not parked among the {@link OutboxSql#scan} oldest.
   */
  public int countDue(SqlSession s, Instant now, int limit, boolean ordered) {
    Params params = Params.of().timestamp("now", now).integer("limit", limit);
    if (ordered) {
      params.integer("scan", OutboxSql.scan(limit));
    }
    return (int) s.query(ordered ? countDueUnparked : countDue, params).get(0).longValue("due");
  }
}
