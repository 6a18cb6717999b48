package dev.lambdaoutbox.store.internal.dialect.postgres;

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
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Every statement of the outbox tables in PostgreSQL, by concern: claims ({@link PostgresClaims}),
 * completions ({@link PostgresCompletions}), parking ({@link PostgresParking}), dead letters
 * ({@link PostgresDeadLetters}), the purge ({@link PostgresPurge}) and the audit preview ({@link
 * PostgresAudit}); what both dialects run alike is in {@link PortableSql}. Each operation is one
 * statement, whatever the batch size: lists of ids and per-row values travel as one JSON text
 * parameter that the statement expands ({@code json_array_elements_text}, {@code
 * json_to_recordset}).
 */
public final class PostgresSql extends PortableSql {
  private final PostgresClaims claims;
  private final PostgresCompletions completions;
  private final PostgresParking parking;
  private final PostgresDeadLetters deadLetters;
  private final PostgresPurge purge;
  private final String insertHealth;

  public PostgresSql(OutboxTables tables) {
    this(new SqlTemplate(tables, PostgresSyntax.SYNTAX));
  }

  private PostgresSql(SqlTemplate sql) {
    super(
        sql,
        PostgresDeadLetters.byIds(sql),
        PostgresAudit.DETAILS_PREVIEW,
        PostgresAudit::withPayloadOfTheRow,
        PostgresClaims.cursors(sql));
    this.claims = new PostgresClaims(sql);
    this.completions = new PostgresCompletions(sql);
    this.parking = new PostgresParking(sql);
    this.deadLetters = new PostgresDeadLetters(sql, deadLetterReads(), audit());
    this.purge = new PostgresPurge(sql);
    // A row another poller inserted first is kept as it is.
    this.insertHealth = health().insert() + " ON CONFLICT (destination_key) DO NOTHING";
  }

  // ---- the poller's outbox

  @Override
  public Claim claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return claimed(
        s,
        owner,
        now,
        MessageRows.readAll(whole(s, claims.claim(s, owner, limit, now, leaseEnd))),
        false);
  }

  @Override
  public List<KeyHead> walkKeys(
      SqlSession s, KeyHead.Key after, KeyHead.Key upTo, int keys, Instant now) {
    return claims.walk.run(s, after, upTo, keys, now);
  }

  @Override
  public Claim claimHeads(
      SqlSession s, String owner, List<String> heads, Instant now, Instant leaseEnd) {
    return claimed(
        s,
        owner,
        now,
        MessageRows.readAll(whole(s, claims.claimHeads(s, owner, heads, now, leaseEnd))),
        true);
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

  /** The rows are leased to the owner already; their ids are UUIDs, the dead letters' own. */
  @Override
  protected Map<UUID, Integer> parkUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now) {
    return park(s, owner, rows.stream().map(UnreadableRow::deadLetterId).toList(), now);
  }

  @Override
  public Map<UUID, Integer> park(SqlSession s, String owner, List<UUID> heads, Instant now) {
    return parking.park(s, owner, heads, now);
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

  @Override
  public Moved deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> rows, Instant now) {
    return deadLetters.move(s, owner, rows.stream().map(DeadLetterMove::of).toList(), now);
  }

  @Override
  public Map<UUID, String> holders(SqlSession s, Collection<UUID> ids) {
    return completions.holders(s, ids);
  }

  // ---- the purge

  @Override
  public int purgeSent(SqlSession s, Instant cutoff, int limit) {
    return s.update(purge.purgeSent, purgeParams(cutoff, limit));
  }

  @Override
  public int purgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    return s.update(purge.purgeKeys, purgeParams(cutoff, limit));
  }

  // ---- destination health (the rest: see PortableHealth)

  /** {@code ON CONFLICT DO NOTHING}: a row another poller inserted first is kept as it is. */
  @Override
  public boolean insertDestinationHealth(SqlSession s, DestinationHealth row) {
    return s.update(insertHealth, PortableHealth.insertParams(row)) == 1;
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

  @Override
  public String claimSql() {
    return claims.claimSql;
  }

  @Override
  public String explainClaim(SqlSession s, Instant now, int limit) {
    return explain(
        s, claims.claimSql, PostgresClaims.claimParams("explain", limit, now, now.plusSeconds(60)));
  }

  @Override
  public String walkKeysSql() {
    return claims.walk.sql(new KeyHead.Key("", ""), null);
  }

  @Override
  public String explainWalkKeys(SqlSession s, KeyHead.Key after, Instant now, int keys) {
    return explain(s, claims.walk.sql(after, null), KeyWalk.params(after, null, keys, now));
  }

  @Override
  public String explainClaimHeads(SqlSession s, List<String> heads, Instant now) {
    return explain(
        s,
        claims.claimHeadsSql,
        PostgresClaims.headsParams("explain", heads, now, now.plusSeconds(60)));
  }

  @Override
  public String explainHoldBehind(SqlSession s, Collection<UUID> heads) {
    return explain(
        s,
        claims.holdBehindSql,
        PostgresClaims.holdBehindParams(heads, Ordering.PARKING_CHUNK_SIZE));
  }

  @Override
  public String explainHoldBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return explain(s, claims.holdBehindWaitingSql, PostgresClaims.windowParams(now, limit));
  }

  @Override
  public String explainPurgeSent(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purge.purgeSent, purgeParams(cutoff, limit));
  }

  @Override
  public String explainPurgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit) {
    return explain(s, purge.purgeKeys, purgeParams(cutoff, limit));
  }
}
