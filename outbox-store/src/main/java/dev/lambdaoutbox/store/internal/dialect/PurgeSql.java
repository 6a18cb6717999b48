package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;

/**
 * The retention purge's statements: sent rows kept past their retention and idempotency keys past
 * their window, each deleted in bounded batches. Each method runs in the caller's transaction on
 * {@code s}; none commits.
 */
public interface PurgeSql {
  /**
   * Deletes up to {@code limit} rows kept as SENT that were sent before {@code cutoff}, oldest
   * first along the sent index, skipping rows another transaction holds locked (so that pollers
   * purging at once neither wait for nor deadlock with each other).
   */
  int purgeSent(SqlSession s, Instant cutoff, int limit);

  /**
   * Deletes up to {@code limit} idempotency keys first seen before {@code cutoff}, oldest first
   * along the key table's time index, skipping keys another transaction holds locked (a writer
   * taking one, or another purge).
   */
  int purgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit);
}
