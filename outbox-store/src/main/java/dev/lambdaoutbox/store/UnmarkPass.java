package dev.lambdaoutbox.store;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.OutboxStore.UnmarkReport;
import dev.lambdaoutbox.store.dialect.OutboxSql;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Duration;
import java.time.Instant;

/**
 * Makes due again, chunk by chunk, the events earlier versions marked parked ({@link
 * OutboxStore#unmarkParked}): each chunk one statement of at most the chunk size in its own
 * transaction, so no statement grows with an aggregate, and a crash between chunks leaves the rest
 * marked for the next pass. Bounded by time as well: one chunk at least, then more until one comes
 * back short or the time slice has passed, and then what remains is counted, no further than its
 * cap.
 */
final class UnmarkPass {
  private final SqlExecutor executor;
  private final OutboxSql dialect;
  private final OutboxTables tables;

  UnmarkPass(SqlExecutor executor, OutboxSql dialect, OutboxTables tables) {
    this.executor = executor;
    this.dialect = dialect;
    this.tables = tables;
  }

  UnmarkReport run(Instant now, int chunkSize, Duration timeSlice) {
    if (chunkSize <= 0) {
      throw new IllegalArgumentException("chunkSize: must be positive, was " + chunkSize);
    }
    long start = System.nanoTime();
    long slice = timeSlice.isNegative() ? 0 : timeSlice.toNanos();
    long unmarked = 0;
    boolean caughtUp;
    do {
      int chunk =
          executor.inTransaction(
              "make due up to " + chunkSize + " events marked parked in " + tables.messages(),
              s -> dialect.unmarkParked(s, now, chunkSize));
      unmarked += chunk;
      caughtUp = chunk < chunkSize;
    } while (!caughtUp && System.nanoTime() - start < slice);
    long remaining =
        caughtUp
            ? 0
            : executor.inTransaction(
                "count the events marked parked in " + tables.messages(),
                dialect::countMarkedParked);
    return new UnmarkReport(unmarked, remaining, caughtUp);
  }
}
