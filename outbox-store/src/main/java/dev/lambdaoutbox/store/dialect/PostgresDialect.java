package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import java.time.Instant;
import java.util.ArrayList;
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
  private final String parkSql;
  private final String holdBehindSql;
  private final String markSentSql;
  private final String deleteSql;
  private final String retrySql;
  private final String deferSql;
  private final String holdersSql;
  private final String deadLetterSql;
  private final String purgeSql;
  private final String reinsertSql;

  PostgresDialect(OutboxTables tables) {
    super(tables, new Syntax(PostgresDialect::at, PostgresDialect::utcText));
    this.messages = tables.messages();
    this.deadLetters = tables.deadLetters();
    String t = messages;

    // The claim (see claimSql below).
    this.claimSql =
        claimSql(
            t,
            "SELECT ctid, id, next_attempt_at FROM "
                + t
                + " WHERE status = 'PENDING' AND next_attempt_at <= "
                + at("now")
                + " ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED");
    // The ordered claim walks the due index too, but only through a window of the :scan oldest
    // due rows of aggregates that are not parked (a parked aggregate's events written after it
    // parked are stepped over, one probe each), and takes those of them that are the oldest
    // PENDING row of their aggregate (one probe of the key index each). The window bounds the walk
    // when fewer aggregates than the limit have a head to give: the rows queued behind heads in
    // flight are not walked to the end. Rows behind a head backing off or deferred are moved to its
    // due time (holdBehind), so they do not sit at the front of the window. An earlier row that is
    // leased, backing off or deferred is PENDING, so it holds up the rows behind it; one another
    // claim is locking right now is PENDING too (the probes read without locking, so SKIP LOCKED
    // does not hide it). The window reads without locking; only the heads taken are locked, found
    // again by ctid, and checked again as they are locked (still PENDING and due), so a row
    // another claim leased meanwhile is skipped. OFFSET 0 keeps each NOT EXISTS a correlated
    // subplan, run per candidate: left to itself the planner may make it an anti-join, and a plan
    // cached while the table was small (a nested loop over a sequential scan) costs the square of
    // the backlog once it has grown.
    this.claimHeadsSql =
        claimSql(
            t,
            "SELECT m.ctid, m.id, m.next_attempt_at FROM (SELECT ctid, id, next_attempt_at,"
                + " aggregate_type, aggregate_id, seq FROM "
                + t
                + " w WHERE status = 'PENDING' AND next_attempt_at <= "
                + at("now")
                + " AND NOT EXISTS (SELECT 1 FROM "
                + tables.parkedKeys()
                + " k WHERE k.aggregate_type = w.aggregate_type"
                + " AND k.aggregate_id = w.aggregate_id OFFSET 0)"
                + " ORDER BY next_attempt_at, id LIMIT :scan) c JOIN "
                + t
                + " m ON m.ctid = c.ctid WHERE m.status = 'PENDING' AND m.next_attempt_at <= "
                + at("now")
                + " AND NOT EXISTS (SELECT 1 FROM "
                + t
                + " e WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id"
                + " AND e.status = 'PENDING' AND e.seq < c.seq OFFSET 0)"
                + " ORDER BY c.next_attempt_at, c.id LIMIT :limit FOR UPDATE OF m SKIP LOCKED");
    // Holding back the rows behind heads that now back off or wait for their destination: they
    // may not go before their head, so they are due no earlier than it.
    this.holdBehindSql =
        "UPDATE "
            + t
            + " m SET next_attempt_at = h.next_attempt_at FROM "
            + t
            + " h WHERE h.id = ANY("
            + uuids("ids")
            + ") AND h.status = 'PENDING' AND m.aggregate_type = h.aggregate_type"
            + " AND m.aggregate_id = h.aggregate_id AND m.status = 'PENDING' AND m.seq > h.seq"
            + " AND m.next_attempt_at < h.next_attempt_at";
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
            + ") AND status = 'PENDING' RETURNING id";
    this.deleteSql =
        "DELETE FROM "
            + t
            + " WHERE id = ANY("
            + uuids("ids")
            + ") AND status = 'PENDING' RETURNING id";
    this.retrySql =
        "UPDATE "
            + t
            + " m SET retry_count = m.retry_count + 1,"
            + " next_attempt_at = CAST(r.due AS timestamp) AT TIME ZONE 'UTC',"
            + " last_error_code = r.code, last_error_reason = r.reason,"
            + " first_failed_at = COALESCE(m.first_failed_at, "
            + at("now")
            + "), locked_by = NULL, locked_until = NULL"
            + " FROM json_to_recordset(CAST(:retries AS json))"
            + " AS r(id uuid, due text, code text, reason text)"
            + " WHERE m.id = r.id AND m.locked_by = :owner AND m.status = 'PENDING' RETURNING m.id";
    // A deferral keeps retry_count; one without an error code (a release) keeps the last error too.
    this.deferSql =
        "UPDATE "
            + t
            + " m SET next_attempt_at = CAST(d.due AS timestamp) AT TIME ZONE 'UTC',"
            + " last_error_code = CASE WHEN d.code IS NULL THEN m.last_error_code ELSE d.code END,"
            + " last_error_reason = CASE WHEN d.code IS NULL THEN m.last_error_reason"
            + " ELSE d.reason END, locked_by = NULL, locked_until = NULL"
            + " FROM json_to_recordset(CAST(:deferrals AS json))"
            + " AS d(id uuid, due text, code text, reason text)"
            + " WHERE m.id = d.id AND m.locked_by = :owner AND m.status = 'PENDING' RETURNING m.id";
    this.holdersSql =
        "SELECT id, locked_by FROM "
            + t
            + " WHERE id = ANY("
            + uuids("ids")
            + ") AND status = 'PENDING'";
    // A dead letter is a DELETE ... RETURNING feeding the INSERT, so exactly the rows removed are
    // the rows inserted; one already dead under the same id (a replay that failed again) is
    // replaced.
    StringBuilder upsert = new StringBuilder();
    for (String column : DeadLetterRows.COLUMNS.subList(1, DeadLetterRows.COLUMNS.size())) {
      upsert.append(upsert.isEmpty() ? "" : ", ").append(column).append(" = EXCLUDED.");
      upsert.append(column);
    }
    this.deadLetterSql =
        "WITH d AS (SELECT * FROM json_to_recordset(CAST(:deadLetters AS json))"
            + " AS d(id uuid, code text, reason text)),"
            + " gone AS (DELETE FROM "
            + t
            + " m USING d WHERE m.id = d.id AND m.locked_by = :owner AND m.status = 'PENDING'"
            + " RETURNING m.*, d.code, d.reason)"
            + " INSERT INTO "
            + deadLetters
            + " ("
            + String.join(", ", DeadLetterRows.COLUMNS)
            + ") SELECT "
            + String.join(", ", DeadLetterRows.CARRIED)
            + ", retry_count + 1, replay_count, code, reason, COALESCE(first_failed_at, "
            + at("now")
            + "), "
            + at("now")
            + ", "
            + at("now")
            + " FROM gone ON CONFLICT (id) DO UPDATE SET "
            + upsert
            + " RETURNING id";
    this.purgeSql =
        "DELETE FROM "
            + t
            + " WHERE id IN (SELECT id FROM "
            + t
            + " WHERE status = 'SENT' AND sent_at < "
            + at("cutoff")
            + " ORDER BY sent_at LIMIT :limit FOR UPDATE SKIP LOCKED)";

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
  private static String claimSql(String t, String due) {
    return "WITH due AS ("
        + due
        + "), claimed AS (UPDATE "
        + t
        + " m SET next_attempt_at = "
        + at("leaseEnd")
        + ", locked_until = "
        + at("leaseEnd")
        + ", locked_by = :owner WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM due)) RETURNING "
        + SelectList.of("m", PostgresDialect::utcText, MessageRows.COLUMNS)
        + ") SELECT claimed.* FROM claimed JOIN due USING (id)"
        + " ORDER BY due.next_attempt_at, due.id";
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
  public List<OutboxMessage> claim(
      SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return claim(s, claimSql, claimParams(owner, limit, now, leaseEnd));
  }

  @Override
  public List<OutboxMessage> claimHeads(
      SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return claim(s, claimHeadsSql, headsParams(owner, limit, now, leaseEnd));
  }

  @Override
  public void holdBehind(SqlSession s, Collection<UUID> heads) {
    s.update(holdBehindSql, Params.of().json("ids", JsonLists.uuids(heads)));
  }

  private static List<OutboxMessage> claim(SqlSession s, String sql, Params params) {
    List<Row> rows = s.query(sql, params);
    List<OutboxMessage> claimed = new ArrayList<>(rows.size());
    for (Row row : rows) {
      claimed.add(MessageRows.read(row));
    }
    return claimed;
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
  public Set<UUID> published(SqlSession s, List<UUID> ids, Instant now, boolean retain) {
    Params params = Params.of().json("ids", JsonLists.uuids(ids));
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
                    .put("reason", ErrorText.reason(d.reason())));
    return idsOf(s.query(deferSql, Params.of().json("deferrals", json).text("owner", owner)));
  }

  @Override
  public Set<UUID> deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> deadLetters, Instant now) {
    String json =
        JsonLists.records(
            deadLetters,
            (d, o) ->
                o.put("id", d.id().toString())
                    .put("code", ErrorText.requiredCode(d.errorCode()))
                    .put("reason", ErrorText.reason(d.reason())));
    return idsOf(
        s.query(
            deadLetterSql,
            Params.of().json("deadLetters", json).text("owner", owner).timestamp("now", now)));
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
    return s.update(purgeSql, Params.of().timestamp("cutoff", cutoff).integer("limit", limit));
  }

  @Override
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
  public List<DeadLetter> deadLettersByIds(SqlSession s, Collection<UUID> ids, boolean lock) {
    String sql =
        "SELECT "
            + deadLetterColumns()
            + " FROM "
            + deadLetters
            + " WHERE id = ANY("
            + uuids("ids")
            + ") ORDER BY id"
            + (lock ? " FOR UPDATE" : "");
    return DeadLetterRows.readAll(s.query(sql, Params.of().json("ids", JsonLists.uuids(ids))));
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
}
