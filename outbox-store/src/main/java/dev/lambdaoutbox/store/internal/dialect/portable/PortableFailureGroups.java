package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.FailureGroupSql;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.FailureFingerprint;
import dev.lambdaoutbox.store.model.deadletter.FailureGroup;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The failure groups' statements, the same in every dialect apart from how a time is written: the
 * walk from one group to the next, a group's count, times and samples, the backfill of fingerprints
 * of rows dead-lettered before they existed, and a re-drive's rows in the outbox (held, spaced out
 * again, counted). Each reads along an index that leads with the group ({@code
 * outbox_dead_letters_group_ix}, {@code outbox_messages_redrive_ix}) and stops at a LIMIT, so that
 * none reads more of a dead table of millions of rows than it returns.
 */
public final class PortableFailureGroups implements FailureGroupSql {
  /** Rows one backfill read returns: each within 17 KB (2,000-character reason, destination). */
  public static final int BACKFILL_ROWS = 50;

  private final SqlTemplate sql;
  private final String nextGroup;
  private final String countGroup;
  private final String firstOfGroup;
  private final String lastOfGroup;
  private final String countUnfingerprinted;
  private final String unfingerprinted;
  private final String stamp;
  private final String oldestOfGroup;
  private final String lastDue;
  private final String holdable;
  private final String held;
  private final String setDue;
  private final String countScheduled;
  private final String countHeld;
  private final String outboxState;
  private final String deadState;

  public PortableFailureGroups(SqlTemplate sql) {
    this.nextGroup =
        sql.fill(
            """
            SELECT failure_fingerprint FROM {deadLetters} WHERE failure_fingerprint > :after
            ORDER BY failure_fingerprint LIMIT 1
            """);
    this.countGroup =
        sql.fill(
            """
            SELECT count(*) AS row_count FROM (SELECT 1 AS one FROM {deadLetters}
              WHERE failure_fingerprint = :fp LIMIT :cap) capped
            """);
    this.firstOfGroup =
        sql.fill(
            """
            SELECT id, error_code, failure_reason_masked, event_type, destination,
              {utc:dead_at} AS dead_at
            FROM {deadLetters} WHERE failure_fingerprint = :fp ORDER BY dead_at, id LIMIT :limit
            """);
    this.lastOfGroup =
        sql.fill(
            """
            SELECT {utc:dead_at} AS dead_at FROM {deadLetters} WHERE failure_fingerprint = :fp
            ORDER BY dead_at DESC, id DESC LIMIT 1
            """);
    this.countUnfingerprinted =
        sql.fill(
            """
            SELECT count(*) AS row_count FROM (SELECT 1 AS one FROM {deadLetters}
              WHERE failure_fingerprint IS NULL LIMIT :cap) capped
            """);
    // The reason's first 2,000 characters are all a fingerprint reads (FailureFingerprint.mask).
    this.unfingerprinted =
        sql.fill(
            """
            SELECT id, error_code, substr(error_reason, 1, 2000) AS error_reason, event_type,
              destination
            FROM {deadLetters} WHERE failure_fingerprint IS NULL LIMIT :limit
            """);
    this.stamp =
        sql.fill(
            """
            UPDATE {deadLetters} SET failure_fingerprint = :fp, failure_reason_masked = :masked
            WHERE id = :id AND failure_fingerprint IS NULL
            """);
    this.sql = sql;
    this.oldestOfGroup =
        """
        SELECT id, {utc:dead_at} AS dead_at FROM {deadLetters} WHERE failure_fingerprint = :fp{after}
        ORDER BY dead_at, id LIMIT :limit FOR UPDATE SKIP LOCKED
        """;
    // Rows waiting for their paced time only: a leased row (its due time is its lease's end) or a
    // retrying one (its backoff) was due already when it was claimed.
    this.lastDue =
        sql.fill(
            """
            SELECT {utc:next_attempt_at} AS due FROM {messages}
            WHERE redrive_group = :fp AND next_attempt_at < {at:held} AND status = 'PENDING'
              AND retry_count = 0 AND (locked_until IS NULL OR locked_until <= {at:now})
            ORDER BY next_attempt_at DESC, id DESC LIMIT 1
            """);
    // A row leased to a poller is being published: it is left to finish (or fail) as it is.
    this.holdable =
        sql.fill(
            """
            SELECT id FROM {messages}
            WHERE redrive_group = :fp AND next_attempt_at < {at:held} AND status = 'PENDING'
              AND (locked_until IS NULL OR locked_until <= {at:now})
            ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED
            """);
    this.held =
        sql.fill(
            """
            SELECT id FROM {messages}
            WHERE redrive_group = :fp AND next_attempt_at = {at:held} AND status = 'PENDING'
            ORDER BY id LIMIT :limit FOR UPDATE SKIP LOCKED
            """);
    // Both due-time columns (DueTimes): a row waiting for its paced time, or held, is not late.
    this.setDue =
        sql.fill(
            """
            UPDATE {messages} SET next_attempt_at = {at:due}, not_before = {at:due}
            WHERE id = :id AND status = 'PENDING'
            """);
    this.countScheduled =
        sql.fill(
            """
            SELECT count(*) AS row_count FROM (SELECT 1 AS one FROM {messages}
              WHERE redrive_group = :fp AND next_attempt_at < {at:held} AND status = 'PENDING'
              LIMIT :cap) capped
            """);
    this.countHeld =
        sql.fill(
            """
            SELECT count(*) AS row_count FROM (SELECT 1 AS one FROM {messages}
              WHERE redrive_group = :fp AND next_attempt_at = {at:held} AND status = 'PENDING'
              LIMIT :cap) capped
            """);
    this.outboxState =
        sql.fill(
            """
            SELECT status, retry_count, last_error_code, last_error_reason FROM {messages}
            WHERE id = :id
            """);
    this.deadState =
        sql.fill(
            """
            SELECT error_code, substr(error_reason, 1, 2000) AS error_reason,
              {utc:dead_at} AS dead_at
            FROM {deadLetters} WHERE id = :id
            """);
  }

  @Override
  public List<FailureGroup> groups(SqlSession s, String after, int limit, int samples) {
    List<FailureGroup> groups = new ArrayList<>();
    String position = after;
    while (groups.size() < limit) {
      List<Row> next = s.query(nextGroup, Params.of().text("after", position));
      if (next.isEmpty()) {
        break;
      }
      position = next.get(0).text("failure_fingerprint");
      groups.add(group(s, position, samples));
    }
    return groups;
  }

  @Override
  public FailureGroup group(SqlSession s, String fingerprint, int samples) {
    long count = countGroup(s, fingerprint);
    List<Row> first =
        s.query(firstOfGroup, Params.of().text("fp", fingerprint).integer("limit", samples));
    if (first.isEmpty()) {
      return null;
    }
    Row head = first.get(0);
    Instant last =
        s.query(lastOfGroup, Params.of().text("fp", fingerprint)).get(0).instant("dead_at");
    return new FailureGroup(
        fingerprint,
        head.text("error_code"),
        head.text("failure_reason_masked"),
        head.text("event_type"),
        head.text("destination"),
        count,
        head.instant("dead_at"),
        last,
        first.stream().map(r -> r.uuid("id")).toList());
  }

  /** The group's dead letters, counted up to the cap plus one. */
  private long countGroup(SqlSession s, String fingerprint) {
    return s.query(
            countGroup,
            Params.of().text("fp", fingerprint).integer("cap", DeadLetter.COUNT_CAP + 1))
        .get(0)
        .longValue("row_count");
  }

  @Override
  public long countUnfingerprinted(SqlSession s) {
    return s.query(countUnfingerprinted, Params.of().integer("cap", DeadLetter.COUNT_CAP + 1))
        .get(0)
        .longValue("row_count");
  }

  @Override
  public int backfill(SqlSession s, int limit) {
    List<Row> rows =
        s.query(unfingerprinted, Params.of().integer("limit", Math.min(limit, BACKFILL_ROWS)));
    if (rows.isEmpty()) {
      return 0;
    }
    List<Params> sets = new ArrayList<>(rows.size());
    for (Row row : rows) {
      FailureFingerprint f =
          FailureFingerprint.of(
              row.text("error_code"),
              row.text("error_reason"),
              row.text("event_type"),
              row.text("destination"));
      sets.add(
          Params.of()
              .text("fp", f.id())
              .text("masked", f.maskedReason())
              .uuid("id", row.uuid("id")));
    }
    s.batch(stamp, sets);
    return rows.size();
  }

  @Override
  public List<DeadLetterCursor> oldest(
      SqlSession s, String fingerprint, DeadLetterCursor after, int limit) {
    Params params = Params.of().text("fp", fingerprint).integer("limit", limit);
    String where = sql.syntax().conditions(params).after(after).where();
    String select =
        sql.fill(oldestOfGroup, "after", where.isEmpty() ? "" : " AND" + where.substring(6));
    return s.query(select, params).stream()
        .map(r -> new DeadLetterCursor(r.instant("dead_at"), r.uuid("id")))
        .toList();
  }

  @Override
  public Instant lastDue(SqlSession s, String fingerprint, Instant now) {
    List<Row> rows =
        s.query(
            lastDue,
            Params.of()
                .text("fp", fingerprint)
                .timestamp("held", HELD_UNTIL)
                .timestamp("now", now));
    return rows.isEmpty() ? null : rows.get(0).instant("due");
  }

  @Override
  public List<UUID> hold(SqlSession s, String fingerprint, Instant now, int limit) {
    List<UUID> ids =
        ids(
            s.query(
                holdable,
                Params.of()
                    .text("fp", fingerprint)
                    .timestamp("held", HELD_UNTIL)
                    .timestamp("now", now)
                    .integer("limit", limit)));
    setDue(s, ids, i -> HELD_UNTIL);
    return ids;
  }

  @Override
  public List<UUID> held(SqlSession s, String fingerprint, int limit) {
    return ids(
        s.query(
            held,
            Params.of()
                .text("fp", fingerprint)
                .timestamp("held", HELD_UNTIL)
                .integer("limit", limit)));
  }

  @Override
  public void setDue(SqlSession s, List<UUID> ids, java.util.function.IntFunction<Instant> due) {
    if (ids.isEmpty()) {
      return;
    }
    List<Params> sets = new ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      sets.add(Params.of().timestamp("due", due.apply(i)).uuid("id", ids.get(i)));
    }
    s.batch(setDue, sets);
  }

  @Override
  public RedriveRows redriveRows(SqlSession s, String fingerprint) {
    Params params =
        Params.of()
            .text("fp", fingerprint)
            .timestamp("held", HELD_UNTIL)
            .integer("cap", DeadLetter.COUNT_CAP + 1);
    return new RedriveRows(
        countGroup(s, fingerprint),
        s.query(countScheduled, params).get(0).longValue("row_count"),
        s.query(countHeld, params).get(0).longValue("row_count"));
  }

  @Override
  public Row outboxRow(SqlSession s, UUID id) {
    List<Row> rows = s.query(outboxState, Params.of().uuid("id", id));
    return rows.isEmpty() ? null : rows.get(0);
  }

  @Override
  public Row deadRow(SqlSession s, UUID id) {
    List<Row> rows = s.query(deadState, Params.of().uuid("id", id));
    return rows.isEmpty() ? null : rows.get(0);
  }

  private static List<UUID> ids(List<Row> rows) {
    return rows.stream().map(r -> r.uuid("id")).toList();
  }
}
