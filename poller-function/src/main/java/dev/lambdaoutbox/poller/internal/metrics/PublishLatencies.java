package dev.lambdaoutbox.poller.internal.metrics;

import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;

/**
 * The commit-to-publish latency of each row an invocation published, the values of the {@code
 * PublishLatencyMs} metric: from the row's {@code created_at} (the database's time when the
 * application appended it, or when an operator replayed it from the dead letters) to when the
 * broker accepted it, on the database's clock. Only rows the store recorded as published count, as
 * for {@code Published}. The poller's reading of that clock may be a round trip ahead, never
 * behind; a latency below 0 (a test's clock set back) counts as 0.
 */
public final class PublishLatencies {
  private long[] values = new long[16];
  private int size;

  /**
   * The latency in milliseconds of each row {@code report} recorded as published, in the report's
   * order.
   *
   * @param rows the claimed rows by id
   * @param publishedAt when the broker had accepted them
   */
  public static long[] of(
      Map<UUID, OutboxMessage> rows, CompletionReport report, Instant publishedAt) {
    long[] latencies = new long[report.count(Completion.Result.PUBLISHED)];
    int i = 0;
    for (Completion c : report.completions()) {
      if (c.result() == Completion.Result.PUBLISHED) {
        Duration latency = Duration.between(rows.get(c.outcome().id()).createdAt(), publishedAt);
        latencies[i++] = Math.max(0, latency.toMillis());
      }
    }
    return latencies;
  }

  /** Adds one round's latencies. */
  void add(long[] latencies) {
    if (size + latencies.length > values.length) {
      values = Arrays.copyOf(values, Math.max(values.length * 2, size + latencies.length));
    }
    System.arraycopy(latencies, 0, values, size, latencies.length);
    size += latencies.length;
  }

  /** Every latency added, in order. */
  long[] values() {
    return Arrays.copyOf(values, size);
  }
}
