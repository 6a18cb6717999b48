package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * A test seam: the statements the plan tests and benchmarks look at, and the database's plans for
 * them, without running them. No production code calls it; the stores see only {@link OutboxSql},
 * {@link DestinationHealthSql}, {@link PurgeSql}, {@link DeadLetterSql} and {@link WaitingRowSql}.
 */
public interface ExplainSql {
  /**
   * The statement {@link OutboxSql#claim} runs first (it finds and locks the rows), with named
   * parameters.
   */
  String claimSql();

  /**
   * The database's plan for {@link #claimSql()}, without running it: to check that it walks the due
   * index.
   */
  String explainClaim(SqlSession s, Instant now, int limit);

  /**
   * The statement {@link OutboxSql#walkKeys} runs from a cursor ({@code :afterType}, {@code
   * :afterId}), visiting {@code :keys} aggregates at {@code :now}.
   */
  String walkKeysSql();

  /**
   * The database's plan for {@link OutboxSql#walkKeys} after {@code after} (from the first key when
   * null), without running it.
   */
  String explainWalkKeys(SqlSession s, KeyHead.Key after, Instant now, int keys);

  /** The database's plan for how {@link OutboxSql#claimHeads} locks {@code heads}. */
  String explainClaimHeads(SqlSession s, List<String> heads, Instant now);

  /**
   * The database's plan for how {@link OutboxSql#holdBehind} finds the rows behind {@code heads}
   * (at most 1,000), up to {@link dev.lambdaoutbox.store.model.Ordering#PARKING_CHUNK_SIZE} behind
   * each, without running it. MySQL reads one head a statement: the plan is the first head's.
   */
  String explainHoldBehind(SqlSession s, Collection<UUID> heads);

  /** The database's plan for {@link OutboxSql#holdBehindWaitingHeads}, without running it. */
  String explainHoldBehindWaitingHeads(SqlSession s, Instant now, int limit);

  /**
   * The statement {@link OutboxSql#backlog} runs, with the named parameter {@code :staleBefore}.
   */
  String backlogSql();

  /** The database's plan for {@link OutboxSql#backlog}, without running it. */
  String explainBacklog(SqlSession s, Instant now);

  /**
   * The database's plans for {@link WaitingRowSql#countWaitingForTime} and {@link
   * WaitingRowSql#nextDue} at {@code now}, one after the other, without running them.
   */
  String explainWaitingForTime(SqlSession s, Instant now);

  /**
   * The database's plan for {@link PurgeSql#purgeSent} (on MySQL, for its locking SELECT), without
   * running it.
   */
  String explainPurgeSent(SqlSession s, Instant cutoff, int limit);

  /**
   * The database's plan for {@link PurgeSql#purgeIdempotencyKeys} (on MySQL, for its locking
   * SELECT), without running it.
   */
  String explainPurgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit);
}
