package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What a run does after its last round: the store's retention pass, bounded by time, and the
 * backlog's gauges for the metrics line.
 */
final class Housekeeping {
  /** The longest the retention purge may take at the end of an invocation. */
  static final Duration PURGE_SLICE = Duration.ofSeconds(10);

  private final OutboxStore store;
  private final Duration safetyMargin;
  private final boolean ordered;
  private final Clock clock;
  private final JsonLogger log;

  Housekeeping(
      OutboxStore store, Duration safetyMargin, boolean ordered, Clock clock, JsonLogger log) {
    this.store = Objects.requireNonNull(store, "store");
    this.safetyMargin = Objects.requireNonNull(safetyMargin, "safetyMargin");
    this.ordered = ordered;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log");
  }

  /** Purges, then reads the backlog. */
  Backlog run(InvocationBudget budget) {
    purge(budget);
    return backlog();
  }

  /**
   * The store's retention pass, in what is left of the invocation before the safety margin, at most
   * {@link #PURGE_SLICE}; what it does not reach, the next invocation does.
   */
  private void purge(InvocationBudget budget) {
    Duration slice = slice(budget);
    PurgeReport report = store.purge(clock.instant(), slice);
    if (!report.caughtUp()) {
      log.warn(
          "the retention purge did not catch up in its time slice; the next invocation goes on",
          Map.of("purged", report.purged(), "sliceMs", Math.max(0, slice.toMillis())));
    } else if (report.total() > 0) {
      log.debug("purged rows past their time", Map.of("purged", report.purged()));
    }
  }

  /** What is left of the invocation before the safety margin, at most {@link #PURGE_SLICE}. */
  private Duration slice(InvocationBudget budget) {
    return Duration.ofMillis(
        Math.min(PURGE_SLICE.toMillis(), budget.remainingMillis() - safetyMargin.toMillis()));
  }

  /** The gauges for the metrics line; forgets destination health rows nobody probes any more. */
  private Backlog backlog() {
    Instant now = clock.instant();
    Backlog backlog = store.backlog(now);
    if (backlog.staleDestinations() > 0) {
      int forgotten = store.destinationHealth().forgetStale(now);
      log.info(
          "forgot destinations marked down that no pending row has been routed to for a while",
          Map.of("forgotten", forgotten));
    }
    if (!ordered && backlog.parkedKeys() > 0) {
      log.warn(
          "aggregates are parked behind dead letters, and OUTBOX_ORDERING is none: their events"
              + " are published without order; replay or discard each dead letter to unpark",
          Map.of("parkedKeys", backlog.parkedKeys(), "parkedEvents", backlog.parkedEvents()));
    }
    return backlog;
  }
}
