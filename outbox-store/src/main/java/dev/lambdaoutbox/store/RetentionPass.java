package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.internal.dialect.PurgeSql;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the {@link PurgeStep}s, each batch its own short transaction, bounded by time rather than by
 * a row count: batches go round the steps that are not done yet until each has come back short or
 * the time slice has passed, so the pass keeps up with any write rate its time slice can delete,
 * and no step starves another.
 */
final class RetentionPass {
  private final SqlExecutor executor;
  private final PurgeSql dialect;
  private final List<PurgeStep> steps;
  private final int batchSize;

  RetentionPass(SqlExecutor executor, PurgeSql dialect, List<PurgeStep> steps, int batchSize) {
    this.executor = executor;
    this.dialect = dialect;
    this.steps = List.copyOf(steps);
    this.batchSize = batchSize;
  }

  PurgeReport run(Instant now, Duration timeSlice) {
    long start = System.nanoTime();
    long slice = timeSlice.isNegative() ? 0 : saturatedNanos(timeSlice);
    Map<String, Long> purged = new LinkedHashMap<>();
    steps.forEach(step -> purged.put(step.name(), 0L));
    List<PurgeStep> pending = new ArrayList<>(steps);
    while (!pending.isEmpty() && System.nanoTime() - start < slice) {
      for (PurgeStep step : List.copyOf(pending)) {
        if (System.nanoTime() - start >= slice) {
          break;
        }
        int deleted =
            executor.inTransaction(
                step.describe(now), s -> step.purgeBatch(s, dialect, now, batchSize));
        purged.merge(step.name(), (long) deleted, Long::sum);
        if (deleted < batchSize) {
          pending.remove(step);
        }
      }
    }
    return new PurgeReport(purged, pending.isEmpty());
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE; // longer than any invocation: no bound at all
    }
  }
}
