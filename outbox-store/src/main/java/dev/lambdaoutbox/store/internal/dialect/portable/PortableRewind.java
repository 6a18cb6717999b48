package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.rows.DueTimes;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.model.rewind.RewindCursor;
import dev.lambdaoutbox.store.model.rewind.RewindPreview;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A rewind's statements, the same in every dialect apart from how a time is written: the walk of
 * the sent rows of a time range along the sent index ({@code outbox_messages_sent_ix}: {@code
 * sent_at} of the SENT rows on PostgreSQL, {@code (status, sent_at)} and the primary key on MySQL),
 * in {@code (sent_at, id)} order from a position, a bounded number of index entries at a time; the
 * copy of one sent row as a new PENDING row, made in SQL so that no payload or headers of any size
 * travel through the function; and the bounded count and sample of a dry run.
 */
public final class PortableRewind {
  /** The sent rows of the range from the position (after_at, after_id) on, in walk order. */
  private static final String WALK =
      """
      status = 'SENT' AND sent_at < {at:sent_to}
        AND sent_at >= {at:after_at} AND (sent_at > {at:after_at} OR id > :after_id)
      """;

  private final SqlTemplate sql;
  private final String scanEnd;
  private final String matching;
  private final String copy;
  private final String copies;
  private final String count;
  private final String sample;

  public PortableRewind(SqlTemplate sql) {
    this.sql = sql;
    // The walk's ORDER BY names the table's sent_at (m.sent_at), not the UTC text of the select
    // list that has its name: ordered by the column, the sent index gives the order and the LIMIT
    // stops the read; by the text, the database would sort every sent row of the range first.
    // Reads :entries + 1 index entries of the sent rows, whatever the filter: a rare event type
    // costs a step no more than a common one.
    this.scanEnd =
        sql.fill(
            """
            SELECT {utc:m.sent_at} AS sent_at, m.id FROM {messages} m WHERE {walk}
            ORDER BY m.sent_at, m.id LIMIT 1 OFFSET :entries
            """,
            "walk",
            sql.fill(WALK));
    this.matching = WALK;
    // The copy takes everything but the row's identity from the sent row, in SQL: its payload and
    // headers, of any size, never leave the database. Its own id, because the sent row may still
    // hold the event's; the event's id goes in rewind_of. The idempotency key stays with the
    // original (it is unique among the outbox rows). NOT EXISTS makes a step sent again copy
    // nothing twice; the unique index (rewind_id, rewind_of) refuses a racing step. A copy waits
    // for
    // its paced time (DueTimes): the age metric does not count it as late meanwhile.
    this.copy =
        sql.fill(
            """
            INSERT INTO {messages} (id, aggregate_type, aggregate_id, event_type, payload, headers,
              destination, idempotency_key, occurred_at, created_at, status, retry_count,
              replay_count, %s, rewind_of, rewind_id)
            SELECT :copy_id, o.aggregate_type, o.aggregate_id, o.event_type, o.payload, o.headers,
              :destination, NULL, o.occurred_at, {at:now}, 'PENDING', 0, 0, %s, o.id,
              :rewind_id
            FROM {messages} o
            WHERE o.id = :id AND o.status = 'SENT' AND o.rewind_of IS NULL
              AND NOT EXISTS (SELECT 1 FROM {messages} c
                              WHERE c.rewind_id = :rewind_id AND c.rewind_of = :id)
            """
                .formatted(DueTimes.COLUMNS, DueTimes.values("due")));
    this.copies =
        sql.fill("SELECT rewind_of FROM {messages} WHERE rewind_id = :rewind_id AND rewind_of IN");
    this.count =
        """
        SELECT count(*) AS scanned,
          COALESCE(SUM(CASE WHEN rewind_of IS NULL{criteria} THEN 1 ELSE 0 END), 0) AS matching
        FROM (SELECT rewind_of, event_type, aggregate_type, aggregate_id FROM {messages}
              WHERE status = 'SENT' AND sent_at >= {at:sent_from} AND sent_at < {at:sent_to}
              ORDER BY sent_at LIMIT :cap) w
        """;
    this.sample =
        """
        SELECT m.id, m.event_type, m.aggregate_type, m.aggregate_id, {utc:m.occurred_at} AS occurred_at,
          {utc:m.sent_at} AS sent_at, substr(m.payload, 1, :preview) AS payload_preview,
          char_length(m.payload) AS payload_length
        FROM (SELECT id, sent_at FROM
                (SELECT id, sent_at, rewind_of, event_type, aggregate_type, aggregate_id
                 FROM {messages}
                 WHERE status = 'SENT' AND sent_at >= {at:sent_from} AND sent_at < {at:sent_to}
                 ORDER BY sent_at, id LIMIT :cap) w
              WHERE rewind_of IS NULL{criteria}
              ORDER BY sent_at, id LIMIT :limit) s
        JOIN {messages} m ON m.id = s.id
        ORDER BY s.sent_at, s.id
        """;
  }

  /** A place in the walk: a sent time, then an id. */
  public record Position(Instant sentAt, UUID id) {}

  /** A sent row the walk found: where it is, and its place in its aggregate ({@code seq}). */
  public record Candidate(UUID id, Instant sentAt, long seq) {}

  /**
   * The position of the sent row {@code entries} rows past {@code after} in the range, matching or
   * not; empty when the range ends first.
   */
  public Optional<Position> scanEnd(SqlSession s, RewindRange range, Position after, int entries) {
    Params params = walk(range, after).integer("entries", entries);
    List<Row> rows = s.query(scanEnd, params);
    return rows.isEmpty()
        ? Optional.empty()
        : Optional.of(new Position(rows.get(0).instant("sent_at"), rows.get(0).uuid("id")));
  }

  /**
   * Up to {@code limit} rows past {@code after} that {@code range} matches, up to and including
   * {@code upTo} (null: to the range's end), in walk order; copies are not matched.
   */
  public List<Candidate> matching(
      SqlSession s, RewindRange range, Position after, Position upTo, int limit) {
    Params params = walk(range, after).integer("limit", limit);
    StringBuilder where = new StringBuilder(matching).append(" AND rewind_of IS NULL");
    if (upTo != null && upTo.id().equals(RewindCursor.NO_ID)) {
      where.append(" AND sent_at < {at:up_to_at}"); // whole groups of one sent time
      params.timestamp("up_to_at", upTo.sentAt());
    } else if (upTo != null) {
      where.append(
          " AND (sent_at < {at:up_to_at} OR (sent_at = {at:up_to_at} AND id <= :up_to_id))");
      params.timestamp("up_to_at", upTo.sentAt()).uuid("up_to_id", upTo.id());
    }
    criteria(where, params, range);
    String select =
        sql.fill(
            "SELECT m.id, {utc:m.sent_at} AS sent_at, m.seq FROM {messages} m WHERE {where}"
                + " ORDER BY m.sent_at, m.id LIMIT :limit",
            "where",
            sql.fill(where.toString()));
    return s.query(select, params).stream()
        .map(r -> new Candidate(r.uuid("id"), r.instant("sent_at"), r.longValue("seq")))
        .toList();
  }

  /** Which of {@code originals} (at most 1,000) rewind {@code rewindId} has copied already. */
  public List<UUID> copiesOf(SqlSession s, UUID rewindId, Collection<UUID> originals) {
    Params params = Params.of().uuid("rewind_id", rewindId);
    return s.query(copies + " " + InLists.uuids("o", originals, params), params).stream()
        .map(r -> r.uuid("rewind_of"))
        .toList();
  }

  /**
   * One PENDING copy per original, in the order given (which the copies' {@code seq} keeps), each
   * due at its time, sent to {@code destination}.
   */
  public void copy(
      SqlSession s,
      List<UUID> originals,
      List<UUID> copyIds,
      List<Instant> due,
      UUID rewindId,
      String destination,
      Instant now) {
    List<Params> sets = new java.util.ArrayList<>(originals.size());
    for (int i = 0; i < originals.size(); i++) {
      sets.add(
          Params.of()
              .uuid("id", originals.get(i))
              .uuid("copy_id", copyIds.get(i))
              .uuid("rewind_id", rewindId)
              .text("destination", destination)
              .timestamp("now", now)
              .timestamp("due", due.get(i)));
    }
    if (!sets.isEmpty()) {
      s.batch(copy, sets);
    }
  }

  /**
   * How many of the range's first {@code cap} sent rows it matches, how many those were, and the
   * first {@code sampleSize} matching, each payload cut to {@code previewChars} characters.
   */
  public RewindPreview preview(
      SqlSession s, RewindRange range, int cap, int sampleSize, int previewChars) {
    Params params =
        Params.of()
            .timestamp("sent_from", range.sentFrom())
            .timestamp("sent_to", range.sentTo())
            .integer("cap", cap)
            .integer("limit", sampleSize)
            .integer("preview", previewChars);
    StringBuilder where = new StringBuilder();
    criteria(where, params, range);
    Row counted = s.query(sql.fill(count, "criteria", where), params).get(0);
    long scanned = counted.longValue("scanned");
    List<RewindPreview.Sample> rows =
        s.query(sql.fill(sample, "criteria", where), params).stream()
            .map(
                r ->
                    new RewindPreview.Sample(
                        r.uuid("id"),
                        r.text("event_type"),
                        r.text("aggregate_type"),
                        r.text("aggregate_id"),
                        r.instant("occurred_at"),
                        r.instant("sent_at"),
                        r.text("payload_preview"),
                        r.longValue("payload_length")))
            .toList();
    return new RewindPreview(counted.longValue("matching"), scanned, scanned < cap, rows);
  }

  private static Params walk(RewindRange range, Position after) {
    return Params.of()
        .timestamp("sent_to", range.sentTo())
        .timestamp("after_at", after.sentAt())
        .uuid("after_id", after.id());
  }

  private static void criteria(StringBuilder where, Params params, RewindRange range) {
    PortableWaiting.criterion(where, params, "event_type", "eventType", range.eventType());
    PortableWaiting.criterion(
        where, params, "aggregate_type", "aggregateType", range.aggregateType());
    PortableWaiting.criterion(where, params, "aggregate_id", "aggregateId", range.aggregateId());
  }
}
