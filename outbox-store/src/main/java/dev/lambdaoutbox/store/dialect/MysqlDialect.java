package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
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
 * Every statement of the outbox tables in MySQL 8, Aurora MySQL 3 and MariaDB 10.6 or later. There
 * is no UPDATE ... RETURNING and no DELETE ... RETURNING, so claims and dead letters take several
 * statements in one transaction: a locking SELECT first, then changes by id. Id lists are {@code
 * IN} lists of generated parameters (at most {@link InLists#MAX} each); per-row values go as a
 * batch.
 *
 * <p>Ids are {@code char(36)}; times are UTC {@code datetime(6)}, so time parameters go in as they
 * are and come out as text ({@code DATE_FORMAT}) to the microsecond.
 *
 * <p>The backlog, the reprocessor's reads and the audit rows are the same SQL in both dialects
 * apart from that; {@link PortableDialect}, which this extends, writes them with this dialect's
 * time syntax.
 */
final class MysqlDialect extends PortableDialect {
  private final String messages;
  private final String deadLetters;
  private final String claimSql;
  private final String claimHeadsSql;
  private final String parkedSql;
  private final String parkKeySql;
  private final String holdBehindSql;
  private final String retrySql;
  private final String deferSql;
  private final String releaseSql;
  private final String deadLetterSql;
  private final String purgeSql;
  private final String reinsertSql;

  MysqlDialect(OutboxTables tables) {
    super(tables, new Syntax(name -> ":" + name, MysqlDialect::utcText));
    this.messages = tables.messages();
    this.deadLetters = tables.deadLetters();
    String t = messages;

    // The claim, first step: walk the (status, next_attempt_at, id) index in order and lock the
    // rows returned, skipping locked ones. The second step leases them by id.
    this.claimSql = claimSql(t);
    // The ordered claim: a window of the :scan oldest due rows of aggregates not parked, read
    // along the due index without locking (a parked aggregate's events written after it parked
    // are stepped over), of which it takes those that are the first PENDING row of their aggregate
    // along the key index (aggregate_type, aggregate_id, status, seq): one index dive that reads
    // one entry (a NOT EXISTS with seq < would read the aggregate's whole range). The window bounds
    // the walk when fewer aggregates than the limit have a head to give; rows behind a head backing
    // off or deferred are moved to its due time (holdBehind), so they do not crowd its front. The
    // heads are then locked by primary key, SKIP LOCKED, and checked again as locked (a locking
    // read sees the latest version: still PENDING and due), so a row another claim leased
    // meanwhile is skipped. An earlier row that is leased, backing off or deferred is PENDING, so
    // it holds up the rows behind it; one another claim is locking right now is PENDING too (the
    // subqueries read without locking, so SKIP LOCKED does not hide it).
    this.claimHeadsSql =
        "SELECT "
            + SelectList.of("m", MysqlDialect::utcText, MessageRows.COLUMNS)
            + " FROM (SELECT w.id, w.aggregate_type, w.aggregate_id, w.seq, w.next_attempt_at FROM "
            + t
            + " w WHERE w.status = 'PENDING' AND w.next_attempt_at <= :now AND NOT EXISTS"
            + " (SELECT 1 FROM "
            + tables.parkedKeys()
            + " k WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id)"
            + " ORDER BY w.next_attempt_at, w.id LIMIT :scan) c JOIN "
            + t
            + " m ON m.id = c.id WHERE m.status = 'PENDING' AND m.next_attempt_at <= :now"
            + " AND c.seq = (SELECT e.seq FROM "
            + t
            + " e WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id"
            + " AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1)"
            + " ORDER BY c.next_attempt_at, c.id LIMIT :limit FOR UPDATE SKIP LOCKED";
    this.holdBehindSql =
        "UPDATE "
            + t
            + " m JOIN "
            + t
            + " h ON h.aggregate_type = m.aggregate_type AND h.aggregate_id = m.aggregate_id"
            + " SET m.next_attempt_at = h.next_attempt_at WHERE h.status = 'PENDING'"
            + " AND m.status = 'PENDING' AND m.seq > h.seq AND m.next_attempt_at < h.next_attempt_at"
            + " AND h.id IN ";
    this.parkedSql =
        "UPDATE "
            + t
            + " SET next_attempt_at = :parkedUntil, last_error_code = :parked,"
            + " last_error_reason = :reason WHERE aggregate_type = :type AND aggregate_id = :aggregateId"
            + " AND status = 'PENDING' AND seq > :seq";
    this.parkKeySql =
        "INSERT INTO "
            + tables.parkedKeys()
            + " (aggregate_type, aggregate_id, dead_letter_id, head_seq, parked_events, parked_at)"
            + " VALUES (:type, :aggregateId, :id, :seq, :events, :now)";
    this.retrySql =
        "UPDATE "
            + t
            + " SET retry_count = retry_count + 1, next_attempt_at = :due,"
            + " last_error_code = :code, last_error_reason = :reason,"
            + " first_failed_at = COALESCE(first_failed_at, :now),"
            + " locked_by = NULL, locked_until = NULL"
            + " WHERE id = :id AND locked_by = :owner AND status = 'PENDING'";
    this.deferSql =
        "UPDATE "
            + t
            + " SET next_attempt_at = :due, last_error_code = :code, last_error_reason = :reason,"
            + " locked_by = NULL, locked_until = NULL"
            + " WHERE id = :id AND locked_by = :owner AND status = 'PENDING'";
    this.releaseSql =
        "UPDATE "
            + t
            + " SET next_attempt_at = :due, locked_by = NULL, locked_until = NULL"
            + " WHERE id = :id AND locked_by = :owner AND status = 'PENDING'";
    StringBuilder upsert = new StringBuilder();
    for (String column : DeadLetterRows.COLUMNS.subList(1, DeadLetterRows.COLUMNS.size())) {
      upsert.append(upsert.isEmpty() ? "" : ", ");
      upsert.append(column).append(" = VALUES(").append(column).append(')');
    }
    this.deadLetterSql =
        "INSERT INTO "
            + deadLetters
            + " ("
            + String.join(", ", DeadLetterRows.COLUMNS)
            + ") SELECT "
            + String.join(", ", DeadLetterRows.CARRIED)
            + ", retry_count + 1, replay_count, :code, :reason, COALESCE(first_failed_at, :now),"
            + " :now, :now FROM "
            + t
            + " WHERE id = :id ON DUPLICATE KEY UPDATE "
            + upsert;
    this.purgeSql =
        "DELETE FROM "
            + t
            + " WHERE status = 'SENT' AND sent_at < :cutoff ORDER BY sent_at LIMIT :limit";

    this.reinsertSql =
        "INSERT INTO "
            + t
            + " (id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
            + " idempotency_key, occurred_at, created_at, status, retry_count, replay_count,"
            + " next_attempt_at, locked_by, locked_until, last_error_code, last_error_reason,"
            + " first_failed_at, sent_at) VALUES (:id, :aggregateType, :aggregateId, :eventType,"
            + " :payload, :headers, :destination, :idempotencyKey, :occurredAt, :now, 'PENDING',"
            + " 0, :replayCount, :now, NULL, NULL, NULL, NULL, NULL, NULL)";
  }

  /** The claim's locking SELECT. */
  private static String claimSql(String t) {
    return "SELECT "
        + SelectList.of("c", MysqlDialect::utcText, MessageRows.COLUMNS)
        + " FROM "
        + t
        + " c WHERE c.status = 'PENDING' AND c.next_attempt_at <= :now"
        + " ORDER BY c.next_attempt_at, c.id LIMIT :limit FOR UPDATE SKIP LOCKED";
  }

  /** A datetime(6) expression as UTC text to the microsecond. */
  private static String utcText(String expression) {
    return "DATE_FORMAT(" + expression + ", '%Y-%m-%d %H:%i:%s.%f')";
  }

  @Override
  public SqlDialect dialect() {
    return SqlDialect.MYSQL;
  }

  // ---- the poller's outbox

  @Override
  public List<OutboxMessage> claim(
      SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return claim(
        s, claimSql, Params.of().timestamp("now", now).integer("limit", limit), owner, leaseEnd);
  }

  @Override
  public List<OutboxMessage> claimHeads(
      SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return claim(s, claimHeadsSql, headsParams(now, limit), owner, leaseEnd);
  }

  @Override
  public void holdBehind(SqlSession s, Collection<UUID> heads) {
    for (List<UUID> chunk : InLists.chunks(List.copyOf(heads))) {
      Params params = Params.of();
      s.update(holdBehindSql + InLists.uuids("id", chunk, params), params);
    }
  }

  private static Params headsParams(Instant now, int limit) {
    return Params.of()
        .timestamp("now", now)
        .integer("limit", limit)
        .integer("scan", StoreDialect.scan(limit));
  }

  private List<OutboxMessage> claim(
      SqlSession s, String sql, Params params, String owner, Instant leaseEnd) {
    List<Row> rows = s.query(sql, params);
    List<OutboxMessage> claimed = new ArrayList<>(rows.size());
    for (Row row : rows) {
      claimed.add(MessageRows.read(row));
    }
    List<UUID> ids = claimed.stream().map(OutboxMessage::id).toList();
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params lease = Params.of().timestamp("leaseEnd", leaseEnd).text("owner", owner);
      s.update(
          "UPDATE "
              + messages
              + " SET next_attempt_at = :leaseEnd, locked_until = :leaseEnd, locked_by = :owner"
              + " WHERE id IN "
              + InLists.uuids("id", chunk, lease),
          lease);
    }
    return claimed;
  }

  /** The locking SELECT; the UPDATE by ids follows. */
  @Override
  public String claimSql() {
    return claimSql;
  }

  @Override
  public String explainClaim(SqlSession s, Instant now, int limit) {
    return explain(s, claimSql, Params.of().timestamp("now", now).integer("limit", limit));
  }

  @Override
  public String claimHeadsSql() {
    return claimHeadsSql;
  }

  @Override
  public String explainClaimHeads(SqlSession s, Instant now, int limit) {
    return explain(s, claimHeadsSql, headsParams(now, limit));
  }

  private static String explain(SqlSession s, String claim, Params params) {
    return Results.planLines(s.query("EXPLAIN FORMAT=JSON " + claim, params));
  }

  /**
   * Locks the heads the owner still holds and reads their keys, then per head marks the events
   * behind it and records the key. A key parked already (it cannot be, while its head was leased)
   * keeps its row.
   */
  @Override
  public Map<UUID, Integer> park(SqlSession s, String owner, List<UUID> heads, Instant now) {
    Map<UUID, Integer> parked = new HashMap<>();
    for (List<UUID> chunk : InLists.chunks(heads)) {
      Params params = Params.of().text("owner", owner);
      String sql =
          "SELECT id, aggregate_type, aggregate_id, seq FROM "
              + messages
              + " WHERE locked_by = :owner AND status = 'PENDING' AND id IN "
              + InLists.uuids("id", chunk, params)
              + " FOR UPDATE";
      for (Row head : s.query(sql, params)) {
        Params key =
            Params.of()
                .text("type", head.text("aggregate_type"))
                .text("aggregateId", head.text("aggregate_id"))
                .longValue("seq", head.longValue("seq"));
        int events =
            s.update(
                parkedSql,
                key.timestamp("parkedUntil", ParkedRows.PARKED_UNTIL)
                    .text("parked", ParkedRows.PARKED)
                    .text("reason", ParkedRows.reason(head.uuid("id"))));
        try {
          s.update(
              parkKeySql,
              Params.of()
                  .text("type", head.text("aggregate_type"))
                  .text("aggregateId", head.text("aggregate_id"))
                  .uuid("id", head.uuid("id"))
                  .longValue("seq", head.longValue("seq"))
                  .integer("events", events)
                  .timestamp("now", now));
          parked.put(head.uuid("id"), events);
        } catch (DuplicateKeyException e) {
          // The key is parked already, behind another dead letter: its row stays as it is.
        }
      }
    }
    return parked;
  }

  /**
   * Locks the PENDING rows among {@code ids} first (there is no DELETE ... RETURNING), so that the
   * ids changed are known exactly; then deletes them, or marks them SENT.
   */
  @Override
  public Set<UUID> published(SqlSession s, List<UUID> ids, Instant now, boolean retain) {
    Set<UUID> present = lockPending(s, null, ids);
    List<UUID> changing = ids.stream().filter(present::contains).toList();
    for (List<UUID> chunk : InLists.chunks(changing)) {
      Params params = Params.of();
      String in = InLists.uuids("id", chunk, params);
      if (retain) {
        params.timestamp("now", now);
        s.update(
            "UPDATE "
                + messages
                + " SET status = 'SENT', sent_at = :now, locked_by = NULL, locked_until = NULL"
                + " WHERE id IN "
                + in,
            params);
      } else {
        s.update("DELETE FROM " + messages + " WHERE id IN " + in, params);
      }
    }
    return present;
  }

  /** Locks the rows {@code owner} still holds, then updates each; the lock makes the ids exact. */
  @Override
  public Set<UUID> retried(
      SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now) {
    Set<UUID> owned = lockPending(s, owner, retries.stream().map(DeliveryOutcome::id).toList());
    List<Params> sets = new ArrayList<>(owned.size());
    for (DeliveryOutcome.Retry r : retries) {
      if (owned.contains(r.id())) {
        sets.add(
            Params.of()
                .timestamp("due", r.nextAttemptAt())
                .text("code", ErrorText.code(r.errorCode()))
                .text("reason", ErrorText.reason(r.reason()))
                .timestamp("now", now)
                .uuid("id", r.id())
                .text("owner", owner));
      }
    }
    if (!sets.isEmpty()) {
      s.batch(retrySql, sets);
    }
    return owned;
  }

  /**
   * Locks the rows {@code owner} still holds, then updates each: those with an error code with it,
   * the others (releases) keeping their last error.
   */
  @Override
  public Set<UUID> deferred(
      SqlSession s, String owner, List<DeliveryOutcome.Defer> deferrals, Instant now) {
    Set<UUID> owned = lockPending(s, owner, deferrals.stream().map(DeliveryOutcome::id).toList());
    List<Params> withError = new ArrayList<>();
    List<Params> released = new ArrayList<>();
    for (DeliveryOutcome.Defer d : deferrals) {
      if (owned.contains(d.id())) {
        if (d.errorCode() == null) {
          released.add(
              Params.of().timestamp("due", d.until()).uuid("id", d.id()).text("owner", owner));
        } else {
          withError.add(
              Params.of()
                  .timestamp("due", d.until())
                  .text("code", ErrorText.code(d.errorCode()))
                  .text("reason", ErrorText.reason(d.reason()))
                  .uuid("id", d.id())
                  .text("owner", owner));
        }
      }
    }
    if (!withError.isEmpty()) {
      s.batch(deferSql, withError);
    }
    if (!released.isEmpty()) {
      s.batch(releaseSql, released);
    }
    return owned;
  }

  /**
   * Locks the rows {@code owner} still holds, so that the INSERT ... SELECT and the DELETE see the
   * same rows; copies each to the dead letters, then deletes them.
   */
  @Override
  public Set<UUID> deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> deadLetters, Instant now) {
    Set<UUID> owned = lockPending(s, owner, deadLetters.stream().map(DeliveryOutcome::id).toList());
    if (owned.isEmpty()) {
      return owned;
    }
    List<Params> sets = new ArrayList<>(owned.size());
    List<UUID> moved = new ArrayList<>(owned.size());
    for (DeliveryOutcome.DeadLetter d : deadLetters) {
      if (owned.contains(d.id())) {
        sets.add(
            Params.of()
                .text("code", ErrorText.requiredCode(d.errorCode()))
                .text("reason", ErrorText.reason(d.reason()))
                .timestamp("now", now)
                .uuid("id", d.id()));
        moved.add(d.id());
      }
    }
    s.batch(deadLetterSql, sets);
    for (List<UUID> chunk : InLists.chunks(moved)) {
      Params params = Params.of();
      s.update(
          "DELETE FROM " + messages + " WHERE id IN " + InLists.uuids("id", chunk, params), params);
    }
    return owned;
  }

  @Override
  public Map<UUID, String> holders(SqlSession s, Collection<UUID> ids) {
    Map<UUID, String> holders = new HashMap<>();
    for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
      Params params = Params.of();
      String sql =
          "SELECT id, locked_by FROM "
              + messages
              + " WHERE status = 'PENDING' AND id IN "
              + InLists.uuids("id", chunk, params);
      for (Row row : s.query(sql, params)) {
        holders.put(row.uuid("id"), row.text("locked_by"));
      }
    }
    return holders;
  }

  /**
   * Locks the PENDING rows of {@code ids} ({@code owner} not null: that it still holds) and returns
   * their ids.
   */
  private Set<UUID> lockPending(SqlSession s, String owner, List<UUID> ids) {
    Set<UUID> locked = new HashSet<>();
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params params = Params.of();
      String held = "";
      if (owner != null) {
        params.text("owner", owner);
        held = "locked_by = :owner AND ";
      }
      String sql =
          "SELECT id FROM "
              + messages
              + " WHERE "
              + held
              + "status = 'PENDING' AND id IN "
              + InLists.uuids("id", chunk, params)
              + " FOR UPDATE";
      for (Row row : s.query(sql, params)) {
        locked.add(row.uuid("id"));
      }
    }
    return locked;
  }

  @Override
  public int purgeSent(SqlSession s, Instant cutoff, int limit) {
    return s.update(purgeSql, Params.of().timestamp("cutoff", cutoff).integer("limit", limit));
  }

  @Override
  public String explainBacklog(SqlSession s, Instant now) {
    return Results.planLines(
        s.query("EXPLAIN FORMAT=JSON " + backlogSql(), Params.of().timestamp("staleBefore", now)));
  }

  // ---- destination health (the rest: see PortableDialect)

  /**
   * A plain INSERT: MySQL refuses a second row for the destination with a duplicate-key error,
   * which leaves the transaction usable; the row there is kept as it is.
   */
  @Override
  public boolean insertDestinationHealth(SqlSession s, DestinationHealth row) {
    try {
      s.update(healthRows().insert(), HealthRows.insertParams(row));
      return true;
    } catch (DuplicateKeyException e) {
      return false;
    }
  }

  // ---- the reprocessor's dead letters (the reads and the audit rows: see PortableDialect)

  @Override
  public List<DeadLetter> deadLettersByIds(SqlSession s, Collection<UUID> ids, boolean lock) {
    List<DeadLetter> rows = new ArrayList<>(ids.size());
    for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
      Params params = Params.of();
      String sql =
          "SELECT "
              + deadLetterColumns()
              + " FROM "
              + deadLetters
              + " WHERE id IN "
              + InLists.uuids("id", chunk, params)
              + " ORDER BY id"
              + (lock ? " FOR UPDATE" : "");
      rows.addAll(DeadLetterRows.readAll(s.query(sql, params)));
    }
    return rows;
  }

  /**
   * MySQL refuses the one INSERT with a duplicate-key error, which leaves the transaction usable;
   * the key it names says whether the id or the idempotency key was taken.
   */
  @Override
  public SkipReason reinsert(
      SqlSession s, DeadLetter row, String destinationOverride, Instant now) {
    try {
      s.update(reinsertSql, DeadLetterRows.reinsertParams(row, destinationOverride, now));
      return null;
    } catch (DuplicateKeyException e) {
      return String.valueOf(e.getMessage()).contains(messages + "_idem_uq")
          ? SkipReason.IDEMPOTENCY_KEY_TAKEN
          : SkipReason.ALREADY_IN_OUTBOX;
    }
  }

  @Override
  public int deleteDeadLetters(SqlSession s, Collection<UUID> ids) {
    int deleted = 0;
    for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
      Params params = Params.of();
      deleted +=
          s.update(
              "DELETE FROM " + deadLetters + " WHERE id IN " + InLists.uuids("id", chunk, params),
              params);
    }
    return deleted;
  }

  @Override
  public Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids) {
    Set<UUID> found = new HashSet<>();
    for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
      Params params = Params.of();
      String sql =
          "SELECT id FROM " + messages + " WHERE id IN " + InLists.uuids("id", chunk, params);
      for (Row row : s.query(sql, params)) {
        found.add(row.uuid("id"));
      }
    }
    return found;
  }

  @Override
  public Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys) {
    Map<String, UUID> holders = new HashMap<>();
    for (List<String> chunk : InLists.chunks(List.copyOf(keys))) {
      Params params = Params.of();
      String sql =
          "SELECT id, idempotency_key FROM "
              + messages
              + " WHERE idempotency_key IN "
              + InLists.texts("key", chunk, params);
      for (Row row : s.query(sql, params)) {
        holders.put(row.text("idempotency_key"), row.uuid("id"));
      }
    }
    return holders;
  }
}
