package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.internal.dialect.PurgeSql;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Duration;
import java.time.Instant;

/**
 * One kind of row the retention pass deletes once it has outlived its time, a bounded batch per
 * transaction. A new kind is one more implementation and one more entry in {@link SqlOutboxStore}'s
 * list of steps.
 */
interface PurgeStep {
  /** Names the kind in reports and logs, e.g. {@code sentRows}. */
  String name();

  /** What one batch does, for the error message: "could not {@code what}". */
  String describe(Instant now);

  /**
   * Deletes up to {@code limit} rows of this kind that are past their time at {@code now}, oldest
   * first, skipping rows another transaction holds locked; returns how many went.
   */
  int purgeBatch(SqlSession s, PurgeSql dialect, Instant now, int limit);

  /** Rows kept as SENT for the retention period, once it has passed. */
  record SentRows(Duration retention) implements PurgeStep {
    @Override
    public String name() {
      return "sentRows";
    }

    @Override
    public String describe(Instant now) {
      return "purge rows sent before " + now.minus(retention);
    }

    @Override
    public int purgeBatch(SqlSession s, PurgeSql dialect, Instant now, int limit) {
      return dialect.purgeSent(s, now.minus(retention), limit);
    }
  }

  /** Idempotency keys first seen longer ago than the idempotency window: free for reuse. */
  record IdempotencyKeys(Duration window) implements PurgeStep {
    @Override
    public String name() {
      return "idempotencyKeys";
    }

    @Override
    public String describe(Instant now) {
      return "purge idempotency keys first seen before " + now.minus(window);
    }

    @Override
    public int purgeBatch(SqlSession s, PurgeSql dialect, Instant now, int limit) {
      return dialect.purgeIdempotencyKeys(s, now.minus(window), limit);
    }
  }
}
