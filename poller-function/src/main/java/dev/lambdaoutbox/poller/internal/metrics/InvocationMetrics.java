package dev.lambdaoutbox.poller.internal.metrics;

import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.MetricUnit;
import java.util.Objects;

/**
 * The EMF metrics line each invocation writes: what it did to the rows ({@link InvocationTotals}),
 * each published row's latency ({@link PublishLatencies}), what the send rates cost (messages
 * throttled, the time calls waited for a rate), the backlog it left (the gauges the alarms watch,
 * each capped as the store counts it), how long it took and why it stopped. An invocation that
 * published more than {@link EmfMetrics#MAX_VALUES_PER_LINE} rows writes the other latencies in
 * further lines that carry nothing else.
 */
public final class InvocationMetrics {
  private final EmfMetrics metrics;

  public InvocationMetrics(EmfMetrics metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /**
   * Writes the line.
   *
   * @param backlog null when the invocation failed before reading it, or was a woken run that found
   *     nothing (it reads no backlog)
   * @param stoppedBecause null when the invocation failed
   */
  public void emit(
      InvocationTotals totals,
      Backlog backlog,
      long durationMs,
      String requestId,
      String stoppedBecause) {
    EmfMetrics.Batch line =
        metrics
            .batch()
            .count("Claimed", totals.claimed)
            .count("Published", totals.published)
            .values("PublishLatencyMs", totals.publishLatencies.values(), MetricUnit.MILLISECONDS)
            .count("Retried", totals.retried)
            .count("DeadLettered", totals.deadLettered)
            .count("Deferred", totals.deferred)
            .count("Released", totals.released)
            .count("LeaseLost", totals.leaseLost)
            .count("Throttled", totals.throttled);
    if (backlog != null) {
      line.metric(
              "OldestUnpublishedAgeSeconds",
              backlog.oldestUnpublishedAge().toMillis() / 1000.0,
              MetricUnit.SECONDS)
          .count(
              "DeadLetterBacklog", Math.min(backlog.deadLetters(), Backlog.DEAD_LETTER_COUNT_CAP))
          .count("DestinationsDown", backlog.destinationsDown())
          .count("DestinationsMisconfigured", backlog.destinationsMisconfigured())
          .count(
              "WaitingOnMisconfigured",
              Math.min(backlog.waitingOnMisconfigured(), Backlog.WAITING_COUNT_CAP))
          .property("deadLetterBacklogCapped", backlog.deadLettersCapped())
          .count("ParkedKeys", Math.min(backlog.parkedKeys(), Backlog.PARKED_COUNT_CAP))
          .count("ParkedEvents", Math.min(backlog.parkedEvents(), Backlog.PARKED_COUNT_CAP))
          .property("parkedCapped", backlog.parkedCapped());
    }
    line.metric("DurationMs", durationMs, MetricUnit.MILLISECONDS)
        .property("heldBack", totals.heldBack)
        .property("pacedMs", totals.pacedMs)
        .property("requestId", String.valueOf(requestId))
        .property("stoppedBecause", stoppedBecause == null ? "error" : stoppedBecause)
        .emit();
  }
}
