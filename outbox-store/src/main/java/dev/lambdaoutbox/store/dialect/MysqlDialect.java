package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.DeliveryOutcome;
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
  private final String claimSizesSql;
  private final String claimedRowsColumns;
  private final String retrySql;
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
    this.claimSql =
        "SELECT "
            + SelectList.of("", MysqlDialect::utcText, MessageRows.COLUMNS)
            + " FROM "
            + t
            + " WHERE status = 'PENDING' AND next_attempt_at <= :now"
            + " ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED";
    // Sized to a result budget, the first step locks the due rows but reads only their sizes;
    // the rows that fit are then read by id, a payload too long for any broker cut (see
    // ResultBudget.MAX_CLAIMED_PAYLOAD_CHARS).
    this.claimSizesSql =
        "SELECT id, "
            + ResultBudget.MESSAGE_BYTES
            + " AS bytes FROM "
            + t
            + " WHERE status = 'PENDING' AND next_attempt_at <= :now"
            + " ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED";
    this.claimedRowsColumns =
        SelectList.of("", MysqlDialect::utcText, MessageRows.COLUMNS)
            .replace(
                "payload,",
                "CASE WHEN octet_length(payload) > :payloadCap THEN LEFT(payload, :payloadCap)"
                    + " ELSE payload END AS payload,");
    this.retrySql =
        "UPDATE "
            + t
            + " SET retry_count = retry_count + 1, next_attempt_at = :due,"
            + " last_error_code = :code, last_error_reason = :reason,"
            + " first_failed_at = COALESCE(first_failed_at, :now),"
            + " locked_by = NULL, locked_until = NULL"
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
    List<OutboxMessage> claimed;
    if (ResultBudget.unbounded(s)) {
      claimed = new ArrayList<>();
      for (Row row : s.query(claimSql, Params.of().timestamp("now", now).integer("limit", limit))) {
        claimed.add(MessageRows.read(row));
      }
    } else {
      claimed = claimWithin(s, limit, now);
    }
    List<UUID> ids = claimed.stream().map(OutboxMessage::id).toList();
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params params = Params.of().timestamp("leaseEnd", leaseEnd).text("owner", owner);
      s.update(
          "UPDATE "
              + messages
              + " SET next_attempt_at = :leaseEnd, locked_until = :leaseEnd, locked_by = :owner"
              + " WHERE id IN "
              + InLists.uuids("id", chunk, params),
          params);
    }
    return claimed;
  }

  /** Locks the due rows, keeps those that fit the session's budget, and reads them, in order. */
  private List<OutboxMessage> claimWithin(SqlSession s, int limit, Instant now) {
    List<Row> sizes =
        s.query(claimSizesSql, Params.of().timestamp("now", now).integer("limit", limit));
    int fit = ResultBudget.fitting(sizes, s.maxResultBytes());
    Map<UUID, OutboxMessage> byId = new HashMap<>();
    List<UUID> ids = sizes.subList(0, fit).stream().map(r -> r.uuid("id")).toList();
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params params = Params.of().integer("payloadCap", ResultBudget.MAX_CLAIMED_PAYLOAD_CHARS);
      String sql =
          "SELECT "
              + claimedRowsColumns
              + " FROM "
              + messages
              + " WHERE id IN "
              + InLists.uuids("id", chunk, params);
      for (Row row : s.query(sql, params)) {
        OutboxMessage m = MessageRows.read(row);
        byId.put(m.id(), m);
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
    return Results.planLines(
        s.query(
            "EXPLAIN FORMAT=JSON " + claimSql,
            Params.of().timestamp("now", now).integer("limit", limit)));
  }

  @Override
  public int published(SqlSession s, List<UUID> ids, Instant now, boolean retain) {
    int changed = 0;
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params params = Params.of();
      String in = InLists.uuids("id", chunk, params);
      if (retain) {
        params.timestamp("now", now);
        changed +=
            s.update(
                "UPDATE "
                    + messages
                    + " SET status = 'SENT', sent_at = :now, locked_by = NULL, locked_until = NULL"
                    + " WHERE status = 'PENDING' AND id IN "
                    + in,
                params);
      } else {
        changed += s.update("DELETE FROM " + messages + " WHERE id IN " + in, params);
      }
    }
    return changed;
  }

  /**
   * Locks the rows {@code owner} still holds, then updates each; the lock makes the count exact.
   */
  @Override
  public int retried(SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now) {
    Set<UUID> owned = lockOwned(s, owner, retries.stream().map(DeliveryOutcome::id).toList());
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
    return sets.size();
  }

  /**
   * Locks the rows {@code owner} still holds, so that the INSERT ... SELECT and the DELETE see the
   * same rows; copies each to the dead letters, then deletes them.
   */
  @Override
  public int deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> deadLetters, Instant now) {
    Set<UUID> owned = lockOwned(s, owner, deadLetters.stream().map(DeliveryOutcome::id).toList());
    if (owned.isEmpty()) {
      return 0;
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
    return published(s, moved, now, false);
  }

  /** Locks the rows of {@code ids} that {@code owner} still holds, and returns their ids. */
  private Set<UUID> lockOwned(SqlSession s, String owner, List<UUID> ids) {
    Set<UUID> owned = new HashSet<>();
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params params = Params.of().text("owner", owner);
      String sql =
          "SELECT id FROM "
              + messages
              + " WHERE locked_by = :owner AND status = 'PENDING' AND id IN "
              + InLists.uuids("id", chunk, params)
              + " FOR UPDATE";
      for (Row row : s.query(sql, params)) {
        owned.add(row.uuid("id"));
      }
    }
    return owned;
  }

  @Override
  public int purgeSent(SqlSession s, Instant cutoff, int limit) {
    return s.update(purgeSql, Params.of().timestamp("cutoff", cutoff).integer("limit", limit));
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
