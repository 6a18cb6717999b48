package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.Claim;
import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.SupersededDeadLetter;
import dev.lambdaoutbox.store.UnreadableRow;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
  private final String claimSizesSql;
  private final String claimHeadsSizesSql;
  private final String claimedRowsColumns;
  private final String parkedSql;
  private final String parkKeySql;
  private final String holdBehindSql;
  private final String holdBehindWaitingSql;
  private final String moveBehindSql;
  private final String retrySql;
  private final String deferSql;
  private final String releaseSql;
  private final String deadLetterSql;
  private final String purgeSql;
  private final String purgeKeysSql;
  private final String reinsertSql;

  MysqlDialect(OutboxTables tables) {
    super(
        tables,
        new Syntax(
            name -> ":" + name,
            MysqlDialect::utcText,
            name -> ":" + name,
            index -> " FORCE INDEX (" + index + ")"));
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
    // off or deferred are moved to its due time (holdBehind), and after a short claim so are the
    // window's rows written since (holdBehindWaitingHeads), so they do not crowd its front. The
    // heads are then locked by primary key, SKIP LOCKED, and checked again as locked (a locking
    // read sees the latest version: still PENDING and due), so a row another claim leased
    // meanwhile is skipped. An earlier row that is leased, backing off or deferred is PENDING, so
    // it holds up the rows behind it; one another claim is locking right now is PENDING too (the
    // subqueries read without locking, so SKIP LOCKED does not hide it).
    String window =
        " FROM (SELECT w.id, w.aggregate_type, w.aggregate_id, w.seq, w.next_attempt_at FROM "
            + t
            + " w WHERE w.status = 'PENDING' AND w.next_attempt_at <= :now AND NOT EXISTS"
            + " (SELECT 1 FROM "
            + tables.parkedKeys()
            + " k WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id)"
            + " ORDER BY w.next_attempt_at, w.id LIMIT :scan) c";
    String headSeq =
        "(SELECT e.seq FROM "
            + t
            + " e WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id"
            + " AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1)";
    String heads =
        window
            + " JOIN "
            + t
            + " m ON m.id = c.id WHERE m.status = 'PENDING' AND m.next_attempt_at <= :now"
            + " AND c.seq = "
            + headSeq
            + " ORDER BY c.next_attempt_at, c.id LIMIT :limit FOR UPDATE SKIP LOCKED";
    this.claimHeadsSql =
        "SELECT " + SelectList.of("m", MysqlDialect::utcText, MessageRows.COLUMNS) + heads;
    // Sized to a result budget, the first step locks the due rows (or heads) but reads only their
    // sizes; the rows that fit are then read by id, a payload too long for any broker cut (see
    // ResultBudget.MAX_CLAIMED_PAYLOAD_CHARS).
    this.claimSizesSql =
        "SELECT id, "
            + ResultBudget.MESSAGE_BYTES
            + " AS bytes FROM "
            + t
            + " WHERE status = 'PENDING' AND next_attempt_at <= :now"
            + " ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED";
    this.claimHeadsSizesSql =
        "SELECT m.id, " + ResultBudget.messageBytes("m") + " AS bytes" + heads;
    this.claimedRowsColumns =
        SelectList.of("", MysqlDialect::utcText, MessageRows.COLUMNS)
            .replace(
                "payload,",
                "CASE WHEN octet_length(payload) > :payloadCap THEN LEFT(payload, :payloadCap)"
                    + " ELSE payload END AS payload,");
    // Holding back the rows behind heads that now back off or wait for their destination: they
    // are due no earlier than their head, so that they do not crowd the front of the ordered
    // claim's window. Only that: they cannot go before their head whether they move or not, as
    // the claim takes no row behind a PENDING one of its aggregate. So the rows are locked SKIP
    // LOCKED first (a completion never waits for a lock here, nor fails for one; a row skipped
    // stays where it was), each head found by primary key and probing the key index for the rows
    // behind it (STRAIGHT_JOIN: the heads first, whatever the statistics say), then moved by
    // primary key.
    this.holdBehindSql =
        "SELECT STRAIGHT_JOIN m.id, "
            + utcText("h.next_attempt_at")
            + " AS due FROM "
            + t
            + " h JOIN "
            + t
            + " m ON m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id"
            + " WHERE h.status = 'PENDING' AND m.status = 'PENDING' AND m.seq > h.seq"
            + " AND m.next_attempt_at < h.next_attempt_at AND h.id IN ";
    // Holding back, after a short ordered claim, the rows of its window that are due before
    // their own aggregate's head while that head waits (see holdBehindWaitingHeads): the window
    // walked as the claim walks it, each row's head found along the key index (one dive for its
    // seq, one for the row), a row taken when its head is due later and not under a live lease.
    // The rows and their heads are locked SKIP LOCKED, then the rows moved by primary key.
    this.holdBehindWaitingSql =
        "SELECT STRAIGHT_JOIN m.id, "
            + utcText("h.next_attempt_at")
            + " AS due"
            + window
            + " JOIN "
            + t
            + " h ON h.aggregate_type = c.aggregate_type AND h.aggregate_id = c.aggregate_id"
            + " AND h.status = 'PENDING' AND h.seq = "
            + headSeq
            + " JOIN "
            + t
            + " m ON m.id = c.id WHERE h.seq < c.seq AND h.next_attempt_at > c.next_attempt_at"
            + " AND (h.locked_until IS NULL OR h.locked_until <= :now) AND m.status = 'PENDING'"
            + " FOR UPDATE SKIP LOCKED";
    this.moveBehindSql = "UPDATE " + t + " SET next_attempt_at = :due WHERE id IN ";
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
            + " locked_by = NULL, locked_until = NULL, waiting_for = NULL"
            + " WHERE id = :id AND locked_by = :owner AND status = 'PENDING'";
    this.deferSql =
        "UPDATE "
            + t
            + " SET next_attempt_at = :due, last_error_code = :code, last_error_reason = :reason,"
            + " waiting_for = :waitingFor, locked_by = NULL, locked_until = NULL"
            + " WHERE id = :id AND locked_by = :owner AND status = 'PENDING'";
    this.releaseSql =
        "UPDATE "
            + t
            + " SET next_attempt_at = :due, locked_by = NULL, locked_until = NULL"
            + " WHERE id = :id AND locked_by = :owner AND status = 'PENDING'";
    // A dead letter already there under the same id has been superseded (kept in the audit,
    // deleted) before; should one appear meanwhile, the INSERT fails, overwriting nothing. The row
    // is found by its id as stored, which for an unreadable row need not be a UUID.
    this.deadLetterSql =
        "INSERT INTO "
            + deadLetters
            + " ("
            + String.join(", ", DeadLetterRows.COLUMNS)
            + ") SELECT "
            + movedValues(":deadId", ":tries", ":code", ":reason", ":now", MysqlDialect::readable)
            + " FROM "
            + t
            + " WHERE id = :id";
    // Locks the due SENT rows it takes, skipping those another purge holds, along the sent index;
    // the DELETE then goes by primary key. (A DELETE ... ORDER BY ... LIMIT cannot skip locked
    // rows: concurrent purges would wait for, or deadlock with, each other.)
    this.purgeSql =
        "SELECT id FROM "
            + t
            + " WHERE status = 'SENT' AND sent_at < :cutoff ORDER BY sent_at LIMIT :limit"
            + " FOR UPDATE SKIP LOCKED";

    this.purgeKeysSql =
        "SELECT idempotency_key FROM "
            + tables.idempotencyKeys()
            + " WHERE first_seen_at < :cutoff ORDER BY first_seen_at LIMIT :limit"
            + " FOR UPDATE SKIP LOCKED";

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

  /**
   * A time column as the dead-letter table takes it: the column while the stores can read it back,
   * otherwise the time of death (a zero date, or a zero month or day, which MySQL may store).
   */
  private static String readable(String column) {
    return "CASE WHEN MONTH("
        + column
        + ") > 0 AND DAYOFMONTH("
        + column
        + ") > 0 THEN "
        + column
        + " ELSE :now END";
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

  /** Locks the due rows (those that fit, under a result budget), then {@link #lease}s them. */
  @Override
  public Claim claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    Params params = Params.of().timestamp("now", now).integer("limit", limit);
    List<Row> rows =
        ResultBudget.unbounded(s)
            ? s.query(claimSql, params)
            : claimWithin(s, claimSizesSql, params);
    return lease(s, owner, rows, now, leaseEnd, false);
  }

  @Override
  public Claim claimHeads(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    Params params = headsParams(now, limit);
    List<Row> rows =
        ResultBudget.unbounded(s)
            ? s.query(claimHeadsSql, params)
            : claimWithin(s, claimHeadsSizesSql, params);
    return lease(s, owner, rows, now, leaseEnd, true);
  }

  @Override
  public void holdBehind(SqlSession s, Collection<UUID> heads) {
    List<Row> behind = new ArrayList<>();
    for (List<UUID> chunk : InLists.chunks(List.copyOf(heads))) {
      Params params = Params.of();
      behind.addAll(s.query(behindSql(chunk, params), params));
    }
    moveToTheirDueTimes(s, behind);
  }

  @Override
  public int holdBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return moveToTheirDueTimes(s, s.query(holdBehindWaitingSql, windowParams(now, limit)));
  }

  @Override
  public String explainHoldBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return explain(s, holdBehindWaitingSql, windowParams(now, limit));
  }

  /** Moves the locked rows ({@code id}, {@code due}) to their due times, by primary key. */
  private int moveToTheirDueTimes(SqlSession s, List<Row> rows) {
    Map<Instant, List<UUID>> byDue = new HashMap<>();
    for (Row row : rows) {
      byDue.computeIfAbsent(row.instant("due"), d -> new ArrayList<>()).add(row.uuid("id"));
    }
    int moved = 0;
    for (Map.Entry<Instant, List<UUID>> due : byDue.entrySet()) {
      for (List<UUID> chunk : InLists.chunks(due.getValue())) {
        Params params = Params.of().timestamp("due", due.getKey());
        moved += s.update(moveBehindSql + InLists.uuids("id", chunk, params), params);
      }
    }
    return moved;
  }

  @Override
  public String explainHoldBehind(SqlSession s, Collection<UUID> heads) {
    Params params = Params.of();
    return explain(s, behindSql(heads, params), params);
  }

  /** Locks the rows behind {@code heads} that no other transaction holds: their ids, due times. */
  private String behindSql(Collection<UUID> heads, Params params) {
    return holdBehindSql + InLists.uuids("id", heads, params) + " FOR UPDATE SKIP LOCKED";
  }

  private static Params headsParams(Instant now, int limit) {
    return windowParams(now, limit).integer("limit", limit);
  }

  private static Params windowParams(Instant now, int limit) {
    return Params.of().timestamp("now", now).integer("scan", StoreDialect.scan(limit));
  }

  /**
   * Reads the locked rows each on its own, leases the readable ones by id, and moves the unreadable
   * ones (which the lock holds) to the dead letters.
   */
  private Claim lease(
      SqlSession s, String owner, List<Row> rows, Instant now, Instant leaseEnd, boolean ordered) {
    MessageRows.Read read = MessageRows.readAll(rows);
    List<UUID> ids = read.messages().stream().map(OutboxMessage::id).toList();
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
    return claimed(s, owner, now, read, ordered);
  }

  @Override
  Moved moveUnreadable(SqlSession s, String owner, List<UnreadableRow> rows, Instant now) {
    return move(s, owner, rows.stream().map(DeadLetterMove::of).toList(), now);
  }

  /**
   * Locks the due rows (or heads) with {@code sizesSql}, keeps those that fit the session's budget,
   * and reads them, in order. Ids go as stored: an unreadable row's need not be a UUID.
   */
  private List<Row> claimWithin(SqlSession s, String sizesSql, Params locking) {
    List<Row> sizes = s.query(sizesSql, locking);
    int fit = ResultBudget.fitting(sizes, s.maxResultBytes());
    Map<String, Row> byId = new HashMap<>();
    List<String> ids = sizes.subList(0, fit).stream().map(r -> r.text("id")).toList();
    for (List<String> chunk : InLists.chunks(ids)) {
      Params params = Params.of().integer("payloadCap", ResultBudget.MAX_CLAIMED_PAYLOAD_CHARS);
      String sql =
          "SELECT "
              + claimedRowsColumns
              + " FROM "
              + messages
              + " WHERE id IN "
              + InLists.texts("id", chunk, params);
      for (Row row : s.query(sql, params)) {
        byId.put(row.text("id"), row);
      }
    }
    return ids.stream().map(byId::get).toList();
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
    Map<String, UUID> deadLetterIds = new LinkedHashMap<>();
    heads.forEach(id -> deadLetterIds.put(id.toString(), id));
    return park(s, owner, deadLetterIds, now);
  }

  /**
   * Unreadable heads are not leased (only locked, by the claim's own transaction), and their ids as
   * stored need not be UUIDs: each parks its key behind its dead letter's id.
   */
  @Override
  Map<UUID, Integer> parkUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now) {
    Map<String, UUID> deadLetterIds = new LinkedHashMap<>();
    rows.forEach(r -> deadLetterIds.put(r.rawId(), r.deadLetterId()));
    return park(s, null, deadLetterIds, now);
  }

  /**
   * Parks the heads whose ids as stored are the keys of {@code deadLetterIds}, each behind its dead
   * letter; with an {@code owner}, only the heads it still holds.
   */
  private Map<UUID, Integer> park(
      SqlSession s, String owner, Map<String, UUID> deadLetterIds, Instant now) {
    Map<UUID, Integer> parked = new HashMap<>();
    for (List<String> chunk : InLists.chunks(List.copyOf(deadLetterIds.keySet()))) {
      Params params = Params.of();
      String sql =
          lockPendingSql(
              "id, aggregate_type, aggregate_id, seq",
              owner,
              InLists.texts("id", chunk, params),
              params);
      for (Row head : s.query(sql, params)) {
        UUID deadLetterId = deadLetterIds.get(head.text("id"));
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
                    .text("reason", ParkedRows.reason(deadLetterId)));
        try {
          s.update(
              parkKeySql,
              Params.of()
                  .text("type", head.text("aggregate_type"))
                  .text("aggregateId", head.text("aggregate_id"))
                  .uuid("id", deadLetterId)
                  .longValue("seq", head.longValue("seq"))
                  .integer("events", events)
                  .timestamp("now", now));
          parked.put(deadLetterId, events);
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
  public Set<UUID> published(
      SqlSession s, String owner, List<UUID> ids, Instant now, boolean retain) {
    Set<UUID> present = lockPending(s, owner, ids);
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
                  .text("waitingFor", waitingFor(d))
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
   * same rows, and moves them.
   */
  @Override
  public Moved deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> deadLetters, Instant now) {
    Set<UUID> owned = lockPending(s, owner, deadLetters.stream().map(DeliveryOutcome::id).toList());
    return move(
        s,
        owner,
        deadLetters.stream().filter(d -> owned.contains(d.id())).map(DeadLetterMove::of).toList(),
        now);
  }

  /**
   * Moves rows this transaction holds locked: supersedes the dead letters of their ids, copies each
   * row to the dead letters, then deletes the rows by their ids as stored.
   */
  private Moved move(SqlSession s, String owner, List<DeadLetterMove> moves, Instant now) {
    if (moves.isEmpty()) {
      return new Moved(Set.of(), List.of());
    }
    List<DeadLetter> existing =
        deadLettersByIds(s, moves.stream().map(DeadLetterMove::deadLetterId).toList(), true);
    List<SupersededDeadLetter> superseded = supersede(s, existing, owner, now);
    List<Params> sets = new ArrayList<>(moves.size());
    for (DeadLetterMove m : moves) {
      sets.add(
          Params.of()
              .uuid("deadId", m.deadLetterId())
              .integer("tries", m.tries())
              .text("code", m.code())
              .text("reason", m.reason())
              .timestamp("now", now)
              .text("id", m.rowId()));
    }
    s.batch(deadLetterSql, sets);
    deleteRows(s, messages, moves.stream().map(DeadLetterMove::rowId).toList());
    Set<UUID> moved = new HashSet<>();
    moves.forEach(m -> moved.add(m.deadLetterId()));
    return new Moved(moved, superseded);
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
      String sql = lockPendingSql("id", owner, InLists.uuids("id", chunk, params), params);
      for (Row row : s.query(sql, params)) {
        locked.add(row.uuid("id"));
      }
    }
    return locked;
  }

  /**
   * {@code SELECT columns} of the PENDING rows whose id is in {@code idList} (an IN list whose
   * values are in {@code params}), locked; with an {@code owner} (added to {@code params}), only
   * those it still holds.
   */
  private String lockPendingSql(String columns, String owner, String idList, Params params) {
    String held = "";
    if (owner != null) {
      params.text("owner", owner);
      held = "locked_by = :owner AND ";
    }
    return "SELECT "
        + columns
        + " FROM "
        + messages
        + " WHERE "
        + held
        + "status = 'PENDING' AND id IN "
        + idList
        + " FOR UPDATE";
  }

  @Override
  public int purgeSent(SqlSession s, Instant cutoff, int limit) {
    return deleteRows(s, messages, lockExpired(s, purgeSql, "id", cutoff, limit));
  }

  /** Locks the expired keys it takes, as {@link #purgeSent} does rows, then deletes them by key. */
  @Override
  public int purgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    List<String> keys = lockExpired(s, purgeKeysSql, "idempotency_key", cutoff, limit);
    return deleteBy(s, tables().idempotencyKeys(), "idempotency_key", keys);
  }

  @Override
  public String explainPurgeSent(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purgeSql, purgeParams(cutoff, limit));
  }

  @Override
  public String explainPurgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purgeKeysSql, purgeParams(cutoff, limit));
  }

  /** Runs a purge's locking SELECT; returns the {@code column} of each row it locked. */
  private static List<String> lockExpired(
      SqlSession s, String sql, String column, Instant cutoff, int limit) {
    List<String> locked = new ArrayList<>();
    for (Row row : s.query(sql, purgeParams(cutoff, limit))) {
      locked.add(row.text(column));
    }
    return locked;
  }

  /** Deletes the rows of {@code table} with these ids as stored; returns how many went. */
  private static int deleteRows(SqlSession s, String table, List<String> ids) {
    return deleteBy(s, table, "id", ids);
  }

  /** Deletes the rows of {@code table} whose {@code column} is one of {@code values}. */
  private static int deleteBy(SqlSession s, String table, String column, List<String> values) {
    int deleted = 0;
    for (List<String> chunk : InLists.chunks(values)) {
      Params params = Params.of();
      deleted +=
          s.update(
              "DELETE FROM "
                  + table
                  + " WHERE "
                  + column
                  + " IN "
                  + InLists.texts("v", chunk, params),
              params);
    }
    return deleted;
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
  List<Row> selectDeadLettersByIds(
      SqlSession s, String selectList, Collection<UUID> ids, boolean lock) {
    List<Row> rows = new ArrayList<>(ids.size());
    for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
      Params params = Params.of();
      String sql =
          "SELECT "
              + selectList
              + " FROM "
              + deadLetters
              + " WHERE id IN "
              + InLists.uuids("id", chunk, params)
              + " ORDER BY id"
              + (lock ? " FOR UPDATE" : "");
      rows.addAll(s.query(sql, params));
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
    return deleteRows(s, deadLetters, ids.stream().map(UUID::toString).toList());
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

  // ---- the audit action's read (the statement: see PortableDialect)

  @Override
  String auditDetailsPreview() {
    String payload = "JSON_UNQUOTE(JSON_EXTRACT(details, '$.deadLetter.payload'))";
    return "CASE WHEN JSON_TYPE(JSON_EXTRACT(details, '$.deadLetter.payload')) = 'STRING'"
        + " THEN JSON_SET(details, '$.deadLetter.payload', SUBSTRING("
        + payload
        + ", 1, :preview)) ELSE details END AS details, CHAR_LENGTH(CASE WHEN"
        + " JSON_TYPE(JSON_EXTRACT(details, '$.deadLetter.payload')) = 'STRING' THEN "
        + payload
        + " END) AS payload_length";
  }
}
