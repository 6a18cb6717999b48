package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.internal.dialect.portable.KeyWalk;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableHealth;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableSql;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.DeadLetterMove;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;

/**
 * Every statement of the outbox tables in MySQL 8, Aurora MySQL 3 and MariaDB 10.6 or later, by
 * concern: claims ({@link MysqlClaims}), completions ({@link MysqlCompletions}), parking ({@link
 * MysqlParking}), dead letters ({@link MysqlDeadLetters}), the purge ({@link MysqlPurge}) and the
 * audit preview ({@link MysqlAudit}); what both dialects run alike is in {@link PortableSql}. There
 * is no UPDATE ... RETURNING and no DELETE ... RETURNING, so claims and dead letters take several
 * statements in one transaction: a locking SELECT first, then changes by id ({@link MysqlLocks}).
 */
public final class MysqlSql extends PortableSql {
  private final MysqlLocks locks;
  private final MysqlClaims claims;
  private final MysqlCompletions completions;
  private final MysqlParking parking;
  private final MysqlDeadLetters deadLetters;
  private final MysqlPurge purge;

  public MysqlSql(OutboxTables tables) {
    this(new SqlTemplate(tables, MysqlSyntax.SYNTAX), tables);
  }

  private MysqlSql(SqlTemplate sql, OutboxTables tables) {
    super(
        sql,
        MysqlDeadLetters.byIds(sql),
        MysqlAudit.DETAILS_PREVIEW,
        MysqlAudit::withPayloadOfTheRow,
        MysqlClaims.cursors(sql));
    this.locks = new MysqlLocks(sql);
    this.claims = new MysqlClaims(sql);
    this.completions = new MysqlCompletions(sql, locks);
    this.parking = new MysqlParking(sql, locks);
    this.deadLetters = new MysqlDeadLetters(sql, tables, deadLetterReads(), audit());
    this.purge = new MysqlPurge(sql, tables);
  }

  // ---- the poller's outbox

  /** Locks the due rows (those that fit, under a result budget), then leases them. */
  @Override
  public Claim claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return lease(s, owner, claims.claim(s, limit, now), now, leaseEnd, false);
  }

  @Override
  public List<KeyHead> walkKeys(
      SqlSession s, KeyHead.Key after, KeyHead.Key upTo, int keys, Instant now) {
    return claims.walk.run(s, after, upTo, keys, now);
  }

  @Override
  public Claim claimHeads(
      SqlSession s, String owner, List<String> heads, Instant now, Instant leaseEnd) {
    return lease(s, owner, claims.claimHeads(s, heads, now), now, leaseEnd, true);
  }

  /**
   * Reads the locked rows each on its own, leases the readable ones by id, and moves the unreadable
   * ones (which the lock holds) to the dead letters.
   */
  private Claim lease(
      SqlSession s, String owner, List<Row> rows, Instant now, Instant leaseEnd, boolean ordered) {
    MessageRows.Read read = MessageRows.readAll(whole(s, rows));
    claims.lease(s, read.messages().stream().map(OutboxMessage::id).toList(), owner, leaseEnd);
    return claimed(s, owner, now, read, ordered);
  }

  @Override
  public void holdBehind(SqlSession s, Collection<UUID> heads, int perHead) {
    claims.holdBehind(s, heads, perHead);
  }

  @Override
  public int holdBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return claims.holdBehindWaitingHeads(s, now, limit);
  }

  @Override
  protected Moved moveUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now) {
    return deadLetters.move(s, owner, rows.stream().map(DeadLetterMove::of).toList(), now);
  }

  /**
   * Unreadable heads are not leased (only locked, by the claim's own transaction), and their ids as
   * stored need not be UUIDs: each parks its key behind its dead letter's id.
   */
  @Override
  protected Map<UUID, Integer> parkUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now) {
    Map<String, UUID> deadLetterIds = new LinkedHashMap<>();
    rows.forEach(r -> deadLetterIds.put(r.rawId(), r.deadLetterId()));
    return parking.park(s, null, deadLetterIds, now);
  }

  /** Locks the heads the owner still holds, then parks each. */
  @Override
  public Map<UUID, Integer> park(SqlSession s, String owner, List<UUID> heads, Instant now) {
    Map<String, UUID> deadLetterIds = new LinkedHashMap<>();
    heads.forEach(id -> deadLetterIds.put(id.toString(), id));
    return parking.park(s, owner, deadLetterIds, now);
  }

  @Override
  public Set<UUID> published(
      SqlSession s, String owner, List<UUID> ids, Instant now, boolean retain) {
    return completions.published(s, owner, ids, now, retain);
  }

  @Override
  public Set<UUID> retried(
      SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now) {
    return completions.retried(s, owner, retries, now);
  }

  @Override
  public Set<UUID> deferred(
      SqlSession s, String owner, List<DeliveryOutcome.Defer> deferrals, Instant now) {
    return completions.deferred(s, owner, deferrals);
  }

  /**
   * Locks the rows {@code owner} still holds, so that the INSERT ... SELECT and the DELETE see the
   * same rows, and moves them.
   */
  @Override
  public Moved deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> rows, Instant now) {
    Set<UUID> owned = locks.lockPending(s, owner, rows.stream().map(DeliveryOutcome::id).toList());
    return deadLetters.move(
        s,
        owner,
        rows.stream().filter(d -> owned.contains(d.id())).map(DeadLetterMove::of).toList(),
        now);
  }

  @Override
  public Map<UUID, String> holders(SqlSession s, Collection<UUID> ids) {
    return completions.holders(s, ids);
  }

  // ---- the purge

  @Override
  public int purgeSent(SqlSession s, Instant cutoff, int limit) {
    return purge.purgeSent(s, purgeParams(cutoff, limit));
  }

  /** Locks the expired keys it takes, as {@link #purgeSent} does rows, then deletes them by key. */
  @Override
  public int purgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    return purge.purgeIdempotencyKeys(s, purgeParams(cutoff, limit));
  }

  // ---- destination health (the rest: see PortableHealth)

  /**
   * A plain INSERT: MySQL refuses a second row for the destination with a duplicate-key error,
   * which leaves the transaction usable; the row there is kept as it is.
   */
  @Override
  public boolean insertDestinationHealth(SqlSession s, DestinationHealth row) {
    try {
      s.update(health().insert(), PortableHealth.insertParams(row));
      return true;
    } catch (DuplicateKeyException e) {
      return false;
    }
  }

  // ---- the reprocessor's dead letters (the reads and the audit rows: see PortableSql)

  @Override
  public SkipReason reinsert(
      SqlSession s,
      DeadLetter row,
      String destinationOverride,
      Instant now,
      Instant due,
      String redriveGroup) {
    return deadLetters.reinsert(s, row, destinationOverride, now, due, redriveGroup);
  }

  @Override
  public int deleteDeadLetters(SqlSession s, Collection<UUID> ids) {
    return deadLetters.delete(s, ids);
  }

  @Override
  public Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids) {
    return deadLetters.idsInOutbox(s, ids);
  }

  @Override
  public Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys) {
    return deadLetters.idempotencyKeyHolders(s, keys);
  }

  // ---- the plans, for tests (ExplainSql)

  /** The locking SELECT; the UPDATE by ids follows. */
  @Override
  public String claimSql() {
    return claims.claimSql;
  }

  @Override
  public String explainClaim(SqlSession s, Instant now, int limit) {
    return explain(s, claims.claimSql, Params.of().timestamp("now", now).integer("limit", limit));
  }

  @Override
  public String walkKeysSql() {
    return claims.walk.entriesSql(new KeyHead.Key("", ""), null);
  }

  /** The plans of both of the walk's statements: the entries read, then the heads (by seq). */
  @Override
  public String explainWalkKeys(SqlSession s, KeyHead.Key after, Instant now, int keys) {
    Params heads = Params.of().timestamp("now", now);
    List<Long> seqs = LongStream.rangeClosed(1, keys).boxed().toList();
    return explain(s, claims.walk.entriesSql(after, null), KeyWalk.params(after, null, keys, now))
        + "\n"
        + explain(s, claims.walk.headsSql(seqs, heads), heads);
  }

  @Override
  public String explainClaimHeads(SqlSession s, List<String> heads, Instant now) {
    Params params = Params.of().timestamp("now", now);
    return explain(s, claims.claimHeadsSql(heads, params), params);
  }

  @Override
  public String explainHoldBehind(SqlSession s, Collection<UUID> heads) {
    Params params = MysqlClaims.behindParams(heads.iterator().next(), Ordering.PARKING_CHUNK_SIZE);
    return explain(s, claims.holdBehind, params);
  }

  @Override
  public String explainHoldBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return explain(s, claims.holdBehindWaitingSql, MysqlClaims.windowParams(now, limit));
  }

  @Override
  public String explainPurgeSent(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purge.lockSent, purgeParams(cutoff, limit));
  }

  @Override
  public String explainPurgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purge.lockKeys, purgeParams(cutoff, limit));
  }
}
