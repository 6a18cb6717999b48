package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.Claim;
import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.SupersededDeadLetter;
import dev.lambdaoutbox.store.UnreadableRow;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Every statement of the outbox tables in PostgreSQL. Each operation is one statement, whatever the
 * batch size: lists of ids and per-row values travel as one JSON text parameter that the statement
 * expands ({@code json_array_elements_text}, {@code json_to_recordset}).
 *
 * <p>Times go in as UTC wall-clock {@code timestamp} parameters, read as UTC whatever the session's
 * time zone ({@code CAST(:now AS timestamp) AT TIME ZONE 'UTC'}), and come out as UTC text to the
 * microsecond.
 *
 * <p>The backlog, the reprocessor's reads and the audit rows are the same SQL in both dialects
 * apart from that; {@link PortableDialect}, which this extends, writes them with this dialect's
 * time syntax.
 */
final class PostgresDialect extends PortableDialect {
  private final String messages;
  private final String deadLetters;
  private final String claimSql;
  private final String claimHeadsSql;
  private final String claimSizedSql;
  private final String claimHeadsSizedSql;
  private final String parkSql;
  private final String holdBehindSql;
  private final String holdBehindWaitingSql;
  private final String markSentSql;
  private final String deleteSql;
  private final String retrySql;
  private final String deferSql;
  private final String holdersSql;
  private final String deadLetterSql;
  private final String ownedDeadLettersSql;
  private final String purgeSql;
  private final String purgeKeysSql;
  private final String reinsertSql;

  PostgresDialect(OutboxTables tables) {
    super(
        tables,
        new Syntax(
            PostgresDialect::at, PostgresDialect::utcText, PostgresDialect::jsonb, index -> ""));
    this.messages = tables.messages();
    this.deadLetters = tables.deadLetters();
    String t = messages;

    // The claim. The due CTE walks the partial due index (WHERE status = 'PENDING') in order and
    // locks what it takes, skipping locked rows (see claimSql for how they are leased).
    String returning = SelectList.of("m", PostgresDialect::utcText, MessageRows.COLUMNS);
    // Sized to a result budget, a payload too long for any broker comes back cut (see
    // ResultBudget.MAX_CLAIMED_PAYLOAD_CHARS).
    String sizedReturning =
        returning.replace(
            "m.payload,",
            "CASE WHEN octet_length(m.payload) > :payloadCap"
                + " THEN left(m.payload, :payloadCap) ELSE m.payload END AS payload,");
    String due =
        " FROM "
            + t
            + " WHERE status = 'PENDING' AND next_attempt_at <= "
            + at("now")
            + " ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED";
    this.claimSql = claimSql(t, "SELECT ctid, id, next_attempt_at" + due, returning);
    this.claimSizedSql =
        claimSizedSql(
            t,
            "SELECT ctid, id, next_attempt_at, " + ResultBudget.MESSAGE_BYTES + " AS bytes" + due,
            sizedReturning);
    // The ordered claim walks the due index too, but only through a window of the :scan oldest
    // due rows of aggregates that are not parked (a parked aggregate's events written after it
    // parked are stepped over, one probe each), and takes those of them that are the oldest
    // PENDING row of their aggregate (one probe of the key index each). The window bounds the walk
    // when fewer aggregates than the limit have a head to give: the rows queued behind heads in
    // flight are not walked to the end. Rows behind a head backing off or deferred are moved to its
    // due time (holdBehind), and after a short claim so are the window's rows written since
    // (holdBehindWaitingHeads), so they do not sit at the front of the window. An earlier row that
    // is leased, backing off or deferred is PENDING, so it holds up the rows behind it; one another
    // claim is locking right now is PENDING too (the probes read without locking, so SKIP LOCKED
    // does not hide it). The window reads without locking; only the heads taken are locked, found
    // again by ctid, and checked again as they are locked (still PENDING and due), so a row
    // another claim leased meanwhile is skipped. OFFSET 0 keeps each NOT EXISTS a correlated
    // subplan, run per candidate: left to itself the planner may make it an anti-join, and a plan
    // cached while the table was small (a nested loop over a sequential scan) costs the square of
    // the backlog once it has grown.
    String window =
        "SELECT ctid, id, next_attempt_at, aggregate_type, aggregate_id, seq FROM "
            + t
            + " w WHERE status = 'PENDING' AND next_attempt_at <= "
            + at("now")
            + " AND NOT EXISTS (SELECT 1 FROM "
            + tables.parkedKeys()
            + " k WHERE k.aggregate_type = w.aggregate_type"
            + " AND k.aggregate_id = w.aggregate_id OFFSET 0)"
            + " ORDER BY next_attempt_at, id LIMIT :scan";
    String heads =
        " FROM ("
            + window
            + ") c JOIN "
            + t
            + " m ON m.ctid = c.ctid WHERE m.status = 'PENDING' AND m.next_attempt_at <= "
            + at("now")
            + " AND NOT EXISTS (SELECT 1 FROM "
            + t
            + " e WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id"
            + " AND e.status = 'PENDING' AND e.seq < c.seq OFFSET 0)"
            + " ORDER BY c.next_attempt_at, c.id LIMIT :limit FOR UPDATE OF m SKIP LOCKED";
    this.claimHeadsSql = claimSql(t, "SELECT m.ctid, m.id, m.next_attempt_at" + heads, returning);
    // The ordered claim sized to a result budget: the same window, the heads measured as locked.
    this.claimHeadsSizedSql =
        claimSizedSql(
            t,
            "SELECT m.ctid, m.id, m.next_attempt_at, "
                + ResultBudget.messageBytes("m")
                + " AS bytes"
                + heads,
            sizedReturning);
    // Holding back the rows behind heads that now back off or wait for their destination: they
    // are due no earlier than their head, so that they do not crowd the front of the ordered
    // claim's window. Only that: they cannot go before their head whether they move or not, as
    // the claim takes no row with an earlier PENDING row of its aggregate, and the head is
    // PENDING. So the rows are taken SKIP LOCKED (a completion never waits for a lock here, nor
    // fails for one; a row skipped stays where it was), and the statement is shaped so that no
    // plan can cost the square of the backlog: each head (by id) probes the key index for the
    // rows behind it (a LATERAL subquery runs per head), and the rows locked are updated by ctid,
    // a TID scan. (As a join of the table with itself, a plan made while the statistics said the
    // table was empty, as they do after a vacuum of a drained outbox, walked every PENDING row
    // and probed for its head: seconds on a backlog of thousands, past the statement timeout.)
    this.holdBehindSql =
        "WITH h AS (SELECT aggregate_type, aggregate_id, seq, next_attempt_at FROM "
            + t
            + " WHERE id = ANY("
            + uuids("ids")
            + ") AND status = 'PENDING'), behind AS (SELECT b.ctid, h.next_attempt_at FROM h"
            + " CROSS JOIN LATERAL (SELECT ctid FROM "
            + t
            + " b WHERE b.aggregate_type = h.aggregate_type AND b.aggregate_id = h.aggregate_id"
            + " AND b.status = 'PENDING' AND b.seq > h.seq AND b.next_attempt_at < h.next_attempt_at"
            + " FOR UPDATE SKIP LOCKED) b) UPDATE "
            + t
            + " m SET next_attempt_at = behind.next_attempt_at FROM behind"
            + " WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM behind)) AND m.ctid = behind.ctid";
    // Holding back, after a short ordered claim, the rows of its window that are due before
    // their own aggregate's head while that head waits: events written after the head was held
    // back, or behind a head whose lease ran out. The window is walked as the claim walks it;
    // each row probes the key index once for its head (a LATERAL subquery per row, the first
    // entry), and a row moves when its head is due later and not under a live lease (a head in
    // flight is published within its invocation; its events stay where they are). The rows moved
    // are locked SKIP LOCKED and updated by ctid, as in holdBehind, with no other condition that a
    // partial index could serve: on the statistics of a drained outbox the planner would read every
    // PENDING row to find them. A row published since the window was read is not found by its old
    // ctid, or no longer visible to the update: it is not moved.
    this.holdBehindWaitingSql =
        "WITH c AS ("
            + window
            + "), ahead AS (SELECT c.ctid, h.next_attempt_at AS due FROM c CROSS JOIN LATERAL"
            + " (SELECT e.seq, e.next_attempt_at, e.locked_until FROM "
            + t
            + " e WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id"
            + " AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1) h"
            + " WHERE h.seq < c.seq AND h.next_attempt_at > c.next_attempt_at"
            + " AND (h.locked_until IS NULL OR h.locked_until <= "
            + at("now")
            + ")), held AS (SELECT ctid FROM "
            + t
            + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM ahead)) FOR UPDATE SKIP LOCKED) UPDATE "
            + t
            + " m SET next_attempt_at = ahead.due FROM ahead"
            + " WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM held)) AND m.ctid = ahead.ctid";
    // Parking, before the head is dead-lettered in the same transaction: lock the heads the owner
    // still holds, mark the events behind each (due never, the dead letter named), and record the
    // key with the head's seq and how many events it parked.
    this.parkSql =
        "WITH h AS (SELECT id, aggregate_type, aggregate_id, seq FROM "
            + t
            + " WHERE id = ANY("
            + uuids("ids")
            + ") AND locked_by = :owner AND status = 'PENDING' FOR UPDATE),"
            + " held AS (UPDATE "
            + t
            + " m SET next_attempt_at = "
            + at("parkedUntil")
            + ", last_error_code = :parked, last_error_reason = :reasonStart || h.id || :reasonEnd"
            + " FROM h WHERE m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id"
            + " AND m.status = 'PENDING' AND m.seq > h.seq RETURNING h.id)"
            + " INSERT INTO "
            + tables.parkedKeys()
            + " (aggregate_type, aggregate_id, dead_letter_id, head_seq, parked_events, parked_at)"
            + " SELECT h.aggregate_type, h.aggregate_id, h.id, h.seq,"
            + " (SELECT count(*) FROM held WHERE held.id = h.id), "
            + at("now")
            + " FROM h ON CONFLICT DO NOTHING RETURNING dead_letter_id, parked_events";

    this.markSentSql =
        "UPDATE "
            + t
            + " SET status = 'SENT', sent_at = "
            + at("now")
            + ", locked_by = NULL, locked_until = NULL WHERE id = ANY("
            + uuids("ids")
            + ") AND status = 'PENDING' AND locked_by = :owner RETURNING id";
    this.deleteSql =
        "DELETE FROM "
            + t
            + " WHERE id = ANY("
            + uuids("ids")
            + ") AND status = 'PENDING' AND locked_by = :owner RETURNING id";
    this.retrySql =
        "UPDATE "
            + t
            + " m SET retry_count = m.retry_count + 1,"
            + " next_attempt_at = CAST(r.due AS timestamp) AT TIME ZONE 'UTC',"
            + " last_error_code = r.code, last_error_reason = r.reason,"
            + " first_failed_at = COALESCE(m.first_failed_at, "
            + at("now")
            + "), locked_by = NULL, locked_until = NULL, waiting_for = NULL"
            + " FROM json_to_recordset(CAST(:retries AS json))"
            + " AS r(id uuid, due text, code text, reason text)"
            + " WHERE m.id = r.id AND m.locked_by = :owner AND m.status = 'PENDING' RETURNING m.id";
    // A deferral keeps retry_count and records what the row waits for; one without an error code (a
    // release) keeps the last error and what the row waited for too.
    this.deferSql =
        "UPDATE "
            + t
            + " m SET next_attempt_at = CAST(d.due AS timestamp) AT TIME ZONE 'UTC',"
            + " last_error_code = CASE WHEN d.code IS NULL THEN m.last_error_code ELSE d.code END,"
            + " last_error_reason = CASE WHEN d.code IS NULL THEN m.last_error_reason"
            + " ELSE d.reason END, waiting_for = CASE WHEN d.code IS NULL THEN m.waiting_for"
            + " ELSE d.waiting END, locked_by = NULL, locked_until = NULL"
            + " FROM json_to_recordset(CAST(:deferrals AS json))"
            + " AS d(id uuid, due text, code text, reason text, waiting text)"
            + " WHERE m.id = d.id AND m.locked_by = :owner AND m.status = 'PENDING' RETURNING m.id";
    this.holdersSql =
        "SELECT id, locked_by FROM "
            + t
            + " WHERE id = ANY("
            + uuids("ids")
            + ") AND status = 'PENDING'";
    // A dead letter is a DELETE ... RETURNING feeding the INSERT, so exactly the rows removed are
    // the rows inserted. A dead letter already there under the same id has been superseded (kept
    // in the audit, deleted) before; should one appear meanwhile, the INSERT fails, overwriting
    // nothing.
    this.deadLetterSql =
        "WITH d AS (SELECT * FROM json_to_recordset(CAST(:deadLetters AS json))"
            + " AS d(id uuid, dead_id uuid, tries int, code text, reason text)),"
            + " gone AS (DELETE FROM "
            + t
            + " m USING d WHERE m.id = d.id AND m.locked_by = :owner AND m.status = 'PENDING'"
            + " RETURNING m.*, d.dead_id, d.tries, d.code, d.reason)"
            + " INSERT INTO "
            + deadLetters
            + " ("
            + String.join(", ", DeadLetterRows.COLUMNS)
            + ") SELECT "
            + movedValues(
                "dead_id", "tries", "code", "reason", at("now"), PostgresDialect::readable)
            + " FROM gone RETURNING id";
    this.ownedDeadLettersSql =
        "SELECT "
            + deadLetterColumns("d")
            + " FROM "
            + deadLetters
            + " d JOIN "
            + t
            + " m ON m.id = d.id WHERE d.id = ANY("
            + uuids("ids")
            + ") AND m.locked_by = :owner AND m.status = 'PENDING' FOR UPDATE";
    // A purge locks the expired rows it takes, skipping those another purge holds, along the time
    // index, then deletes them by ctid (a TID scan; a row locked here keeps its ctid). A DELETE ...
    // WHERE id IN (that SELECT) is a join the planner may turn inside out on statistics that say
    // the
    // table is empty (after a vacuum of a drained table, or before the first analyze of a filled
    // one): the locking SELECT re-run per row of the table, quadratic, and each re-run locking rows
    // the last one had not, so more than the limit went.
    this.purgeSql =
        "DELETE FROM "
            + t
            + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM "
            + t
            + " WHERE status = 'SENT' AND sent_at < "
            + at("cutoff")
            + " ORDER BY sent_at LIMIT :limit FOR UPDATE SKIP LOCKED))";

    this.purgeKeysSql =
        "DELETE FROM "
            + tables.idempotencyKeys()
            + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM "
            + tables.idempotencyKeys()
            + " WHERE first_seen_at < "
            + at("cutoff")
            + " ORDER BY first_seen_at LIMIT :limit FOR UPDATE SKIP LOCKED))";

    this.reinsertSql =
        "INSERT INTO "
            + t
            + " (id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
            + " idempotency_key, occurred_at, created_at, status, retry_count, replay_count,"
            + " next_attempt_at, locked_by, locked_until, last_error_code, last_error_reason,"
            + " first_failed_at, sent_at) VALUES (:id, :aggregateType, :aggregateId, :eventType,"
            + " :payload, :headers, :destination, :idempotencyKey, "
            + at("occurredAt")
            + ", "
            + at("now")
            + ", 'PENDING', 0, :replayCount, "
            + at("now")
            + ", NULL, NULL, NULL, NULL, NULL, NULL) ON CONFLICT DO NOTHING";
  }

  /**
   * The claim around {@code due}, the statement that finds and locks the rows ({@code ctid, id,
   * next_attempt_at}). The UPDATE leases exactly those rows and returns them, sorted by their due
   * time before the lease moved it. It finds its rows by the physical row ids (ctid) the locking
   * SELECT returned, through = ANY(ARRAY(...)): a TID scan, with no second index look-up per row,
   * and a plan shape that cannot change. (Joining due on id lets a generic plan, which the server
   * adopts for a statement prepared over and over, pick a hash join over a sequential scan of the
   * whole table: claim cost would grow with the table.) The locked rows cannot move before the
   * UPDATE, as this transaction holds their locks; were a ctid ever stale, that row would simply
   * not be claimed this time.
   */
  private static String claimSql(String t, String due, String returning) {
    return "WITH due AS (" + due + "), " + lease(t, "due", returning);
  }

  /**
   * The claim around {@code due} sized to a result budget: {@code due} also gives each row's {@code
   * bytes}; of the rows it locked, the fit CTE keeps the first ones whose running size stays within
   * :maxBytes (always the first); the rest stay due and are released at commit.
   */
  private static String claimSizedSql(String t, String due, String returning) {
    return "WITH due AS ("
        + due
        + "), fit AS (SELECT ctid, id, next_attempt_at FROM (SELECT ctid, id, next_attempt_at,"
        + " sum(bytes) OVER w AS running, row_number() OVER w AS n FROM due"
        + " WINDOW w AS (ORDER BY next_attempt_at, id)) sized"
        + " WHERE running <= :maxBytes OR n = 1), "
        + lease(t, "fit", returning);
  }

  /**
   * The claim's {@code claimed} CTE and its result: leases the rows whose {@code ctid}s the CTE
   * {@code rows} locked, and returns {@code returning} of each, in the order of {@code rows}.
   */
  private static String lease(String table, String rows, String returning) {
    return "claimed AS (UPDATE "
        + table
        + " m SET next_attempt_at = "
        + at("leaseEnd")
        + ", locked_until = "
        + at("leaseEnd")
        + ", locked_by = :owner WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM "
        + rows
        + ")) RETURNING "
        + returning
        + ") SELECT claimed.* FROM claimed JOIN "
        + rows
        + " USING (id) ORDER BY "
        + rows
        + ".next_attempt_at, "
        + rows
        + ".id";
  }

  /** A timestamp parameter, read as UTC. */
  private static String at(String param) {
    return "(CAST(:" + param + " AS timestamp) AT TIME ZONE 'UTC')";
  }

  /**
   * A timestamptz expression as UTC text: {@code YYYY-MM-DD HH:MM:SS[.ffffff]} (trailing zeros of
   * the fraction dropped) under the ISO DateStyle that pgjdbc and the Data API sessions use. Half
   * the server's cost of {@code to_char}; a claim formats three times per row.
   */
  private static String utcText(String expression) {
    return "CAST(" + expression + " AT TIME ZONE 'UTC' AS text)";
  }

  /**
   * A time column as the dead-letter table takes it: the column while the stores can read it back
   * (years 1 to 9999), otherwise the time of death ('infinity', a year BC or past 9999).
   */
  private static String readable(String column) {
    return "CASE WHEN "
        + column
        + " >= TIMESTAMPTZ '0001-01-01 00:00:00+00' AND "
        + column
        + " < TIMESTAMPTZ '10000-01-01 00:00:00+00' THEN "
        + column
        + " ELSE "
        + at("now")
        + " END";
  }

  /** A JSON text parameter as {@code jsonb}. */
  private static String jsonb(String param) {
    return "CAST(:" + param + " AS jsonb)";
  }

  /** The uuids of a JSON array parameter, as an array for {@code = ANY(...)}. */
  private static String uuids(String param) {
    return "ARRAY(SELECT CAST(value AS uuid) FROM json_array_elements_text(CAST(:"
        + param
        + " AS json)))";
  }

  @Override
  public SqlDialect dialect() {
    return SqlDialect.POSTGRESQL;
  }

  // ---- the poller's outbox

  @Override
  public Claim claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return claimed(
        s,
        owner,
        now,
        MessageRows.readAll(
            claimRows(s, claimSql, claimSizedSql, claimParams(owner, limit, now, leaseEnd))),
        false);
  }

  @Override
  public Claim claimHeads(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return claimed(
        s,
        owner,
        now,
        MessageRows.readAll(
            claimRows(
                s, claimHeadsSql, claimHeadsSizedSql, headsParams(owner, limit, now, leaseEnd))),
        true);
  }

  @Override
  public void holdBehind(SqlSession s, Collection<UUID> heads) {
    s.update(holdBehindSql, Params.of().json("ids", JsonLists.uuids(heads)));
  }

  @Override
  public String explainHoldBehind(SqlSession s, Collection<UUID> heads) {
    return explain(s, holdBehindSql, Params.of().json("ids", JsonLists.uuids(heads)));
  }

  @Override
  public int holdBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return s.update(holdBehindWaitingSql, windowParams(now, limit));
  }

  @Override
  public String explainHoldBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return explain(s, holdBehindWaitingSql, windowParams(now, limit));
  }

  private static Params windowParams(Instant now, int limit) {
    return Params.of().timestamp("now", now).integer("scan", StoreDialect.scan(limit));
  }

  /** Runs the claim, or where the session bounds a result, its sized variant. */
  private static List<Row> claimRows(SqlSession s, String sql, String sizedSql, Params params) {
    if (ResultBudget.unbounded(s)) {
      return s.query(sql, params);
    }
    return s.query(
        sizedSql,
        params
            .integer("maxBytes", ResultBudget.asParameter(s))
            .integer("payloadCap", ResultBudget.MAX_CLAIMED_PAYLOAD_CHARS));
  }

  @Override
  Moved moveUnreadable(SqlSession s, String owner, List<UnreadableRow> rows, Instant now) {
    return move(s, owner, rows.stream().map(DeadLetterMove::of).toList(), now);
  }

  /** The rows are leased to the owner already; their ids are UUIDs, the dead letters' own. */
  @Override
  Map<UUID, Integer> parkUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now) {
    return park(s, owner, rows.stream().map(UnreadableRow::deadLetterId).toList(), now);
  }

  @Override
  public String claimSql() {
    return claimSql;
  }

  @Override
  public String explainClaim(SqlSession s, Instant now, int limit) {
    return explain(s, claimSql, claimParams("explain", limit, now, now.plusSeconds(60)));
  }

  @Override
  public String claimHeadsSql() {
    return claimHeadsSql;
  }

  @Override
  public String explainClaimHeads(SqlSession s, Instant now, int limit) {
    return explain(s, claimHeadsSql, headsParams("explain", limit, now, now.plusSeconds(60)));
  }

  private static String explain(SqlSession s, String claim, Params params) {
    return Results.planLines(s.query("EXPLAIN " + claim, params));
  }

  /** The ordered claim's parameters: the claim's, and the window it walks. */
  private static Params headsParams(String owner, int limit, Instant now, Instant leaseEnd) {
    return claimParams(owner, limit, now, leaseEnd).integer("scan", StoreDialect.scan(limit));
  }

  @Override
  public Map<UUID, Integer> park(SqlSession s, String owner, List<UUID> heads, Instant now) {
    String reason = ParkedRows.reason("\u0000");
    int split = reason.indexOf('\u0000');
    Params params =
        Params.of()
            .json("ids", JsonLists.uuids(heads))
            .text("owner", owner)
            .timestamp("parkedUntil", ParkedRows.PARKED_UNTIL)
            .text("parked", ParkedRows.PARKED)
            .text("reasonStart", reason.substring(0, split))
            .text("reasonEnd", reason.substring(split + 1))
            .timestamp("now", now);
    Map<UUID, Integer> parked = new HashMap<>();
    for (Row row : s.query(parkSql, params)) {
      parked.put(row.uuid("dead_letter_id"), row.integer("parked_events"));
    }
    return parked;
  }

  private static Params claimParams(String owner, int limit, Instant now, Instant leaseEnd) {
    return Params.of()
        .timestamp("now", now)
        .integer("limit", limit)
        .timestamp("leaseEnd", leaseEnd)
        .text("owner", owner);
  }

  @Override
  public Set<UUID> published(
      SqlSession s, String owner, List<UUID> ids, Instant now, boolean retain) {
    Params params = Params.of().json("ids", JsonLists.uuids(ids)).text("owner", owner);
    if (retain) {
      return idsOf(s.query(markSentSql, params.timestamp("now", now)));
    }
    return idsOf(s.query(deleteSql, params));
  }

  @Override
  public Set<UUID> retried(
      SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now) {
    String json =
        JsonLists.records(
            retries,
            (r, o) ->
                o.put("id", r.id().toString())
                    .put("due", JsonLists.utc(r.nextAttemptAt()))
                    .put("code", ErrorText.code(r.errorCode()))
                    .put("reason", ErrorText.reason(r.reason())));
    return idsOf(
        s.query(
            retrySql,
            Params.of().json("retries", json).timestamp("now", now).text("owner", owner)));
  }

  @Override
  public Set<UUID> deferred(
      SqlSession s, String owner, List<DeliveryOutcome.Defer> deferrals, Instant now) {
    String json =
        JsonLists.records(
            deferrals,
            (d, o) ->
                o.put("id", d.id().toString())
                    .put("due", JsonLists.utc(d.until()))
                    .put("code", ErrorText.code(d.errorCode()))
                    .put("reason", ErrorText.reason(d.reason()))
                    .put("waiting", waitingFor(d)));
    return idsOf(s.query(deferSql, Params.of().json("deferrals", json).text("owner", owner)));
  }

  @Override
  public Moved deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> deadLetters, Instant now) {
    return move(s, owner, deadLetters.stream().map(DeadLetterMove::of).toList(), now);
  }

  /**
   * Moves the rows {@code owner} holds: first supersedes the dead letters of their ids (locking
   * them and the rows), then one statement deletes the rows and inserts them as dead letters.
   */
  private Moved move(SqlSession s, String owner, List<DeadLetterMove> moves, Instant now) {
    List<UUID> ids = moves.stream().map(DeadLetterMove::deadLetterId).toList();
    List<DeadLetter> existing =
        DeadLetterRows.readAll(
            s.query(
                ownedDeadLettersSql,
                Params.of().json("ids", JsonLists.uuids(ids)).text("owner", owner)));
    List<SupersededDeadLetter> superseded = supersede(s, existing, owner, now);
    String json =
        JsonLists.records(
            moves,
            (m, o) ->
                o.put("id", m.rowId())
                    .put("dead_id", m.deadLetterId().toString())
                    .put("tries", m.tries())
                    .put("code", m.code())
                    .put("reason", m.reason()));
    Set<UUID> moved =
        idsOf(
            s.query(
                deadLetterSql,
                Params.of().json("deadLetters", json).text("owner", owner).timestamp("now", now)));
    return new Moved(moved, superseded);
  }

  @Override
  public Map<UUID, String> holders(SqlSession s, Collection<UUID> ids) {
    Map<UUID, String> holders = new HashMap<>();
    for (Row row : s.query(holdersSql, Params.of().json("ids", JsonLists.uuids(ids)))) {
      holders.put(row.uuid("id"), row.text("locked_by"));
    }
    return holders;
  }

  private static Set<UUID> idsOf(List<Row> rows) {
    Set<UUID> ids = new HashSet<>(rows.size() * 2);
    for (Row row : rows) {
      ids.add(row.uuid("id"));
    }
    return ids;
  }

  @Override
  public int purgeSent(SqlSession s, Instant cutoff, int limit) {
    return s.update(purgeSql, purgeParams(cutoff, limit));
  }

  @Override
  public int purgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    return s.update(purgeKeysSql, purgeParams(cutoff, limit));
  }

  @Override
  public String explainPurgeSent(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purgeSql, purgeParams(cutoff, limit));
  }

  @Override
  public String explainPurgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purgeKeysSql, purgeParams(cutoff, limit));
  }

  public String explainBacklog(SqlSession s, Instant now) {
    return Results.planLines(
        s.query("EXPLAIN " + backlogSql(), Params.of().timestamp("staleBefore", now)));
  }

  // ---- destination health (the rest: see PortableDialect)

  /** {@code ON CONFLICT DO NOTHING}: a row another poller inserted first is kept as it is. */
  @Override
  public boolean insertDestinationHealth(SqlSession s, DestinationHealth row) {
    return s.update(
            healthRows().insert() + " ON CONFLICT (destination_key) DO NOTHING",
            HealthRows.insertParams(row))
        == 1;
  }

  // ---- the reprocessor's dead letters (the reads and the audit rows: see PortableDialect)

  @Override
  List<Row> selectDeadLettersByIds(
      SqlSession s, String selectList, Collection<UUID> ids, boolean lock) {
    String sql =
        "SELECT "
            + selectList
            + " FROM "
            + deadLetters
            + " WHERE id = ANY("
            + uuids("ids")
            + ") ORDER BY id"
            + (lock ? " FOR UPDATE" : "");
    return s.query(sql, Params.of().json("ids", JsonLists.uuids(ids)));
  }

  /**
   * {@code ON CONFLICT DO NOTHING} skips a row whose id or idempotency key is taken and keeps the
   * transaction usable; a look-up then says which.
   */
  @Override
  public SkipReason reinsert(
      SqlSession s, DeadLetter row, String destinationOverride, Instant now) {
    if (s.update(reinsertSql, DeadLetterRows.reinsertParams(row, destinationOverride, now)) == 1) {
      return null;
    }
    return idsInOutbox(s, List.of(row.id())).isEmpty()
        ? SkipReason.IDEMPOTENCY_KEY_TAKEN
        : SkipReason.ALREADY_IN_OUTBOX;
  }

  @Override
  public int deleteDeadLetters(SqlSession s, Collection<UUID> ids) {
    return s.update(
        "DELETE FROM " + deadLetters + " WHERE id = ANY(" + uuids("ids") + ")",
        Params.of().json("ids", JsonLists.uuids(ids)));
  }

  @Override
  public Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids) {
    Set<UUID> found = new HashSet<>();
    if (!ids.isEmpty()) {
      String sql = "SELECT id FROM " + messages + " WHERE id = ANY(" + uuids("ids") + ")";
      for (Row row : s.query(sql, Params.of().json("ids", JsonLists.uuids(ids)))) {
        found.add(row.uuid("id"));
      }
    }
    return found;
  }

  @Override
  public Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys) {
    Map<String, UUID> holders = new HashMap<>();
    if (!keys.isEmpty()) {
      String sql =
          "SELECT id, idempotency_key FROM "
              + messages
              + " WHERE idempotency_key = ANY(ARRAY(SELECT value FROM"
              + " json_array_elements_text(CAST(:keys AS json))))";
      for (Row row : s.query(sql, Params.of().json("keys", JsonLists.texts(keys)))) {
        holders.put(row.text("idempotency_key"), row.uuid("id"));
      }
    }
    return holders;
  }

  // ---- the audit action's read (the statement: see PortableDialect)

  @Override
  String auditDetailsPreview() {
    String payload = "details #>> '{deadLetter,payload}'";
    return "CAST(CASE WHEN jsonb_typeof(details #> '{deadLetter,payload}') = 'string'"
        + " THEN jsonb_set(details, '{deadLetter,payload}', to_jsonb(substr("
        + payload
        + ", 1, :preview))) ELSE details END AS text) AS details, char_length("
        + payload
        + ") AS payload_length";
  }
}
