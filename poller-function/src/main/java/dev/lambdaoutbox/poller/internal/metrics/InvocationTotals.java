package dev.lambdaoutbox.poller.internal.metrics;

import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;

/**
 * The running counts of one invocation, from what the store reports it applied: the summary the
 * handler returns and the counts of the metrics line ({@link InvocationMetrics}). Used by the
 * invocation's thread alone.
 */
public final class InvocationTotals {
  int claimed;
  int published;
  int retried;
  int deadLettered;
  int deferred;
  int released;
  int heldBack;
  int leaseLost;
  long throttled;
  long pacedMs;
  final PublishLatencies publishLatencies = new PublishLatencies();
  private int rounds;

  /** A claim was taken (with or without rows). */
  public void countRound() {
    rounds++;
  }

  /** Claims taken so far. */
  public int rounds() {
    return rounds;
  }

  /** Rows a claim took. */
  public void countClaimed(int rows) {
    claimed += rows;
  }

  /** Rows a claim could not read: claimed, and dead-lettered by the claim itself. */
  public void unreadable(int rows) {
    claimed += rows;
    deadLettered += rows;
  }

  /**
   * What one recording applied, the rows its round held back (no outcome), and the latency of each
   * row it published ({@link PublishLatencies#of}).
   */
  public void add(CompletionReport report, int heldBackRows, long[] publishLatencyMs) {
    publishLatencies.add(publishLatencyMs);
    for (Completion c : report.completions()) {
      switch (c.result()) {
        case PUBLISHED -> published++;
        case RETRIED -> retried++;
        case DEAD_LETTERED -> deadLettered++;
        case DEFERRED -> {
          if (c.outcome() instanceof DeliveryOutcome.Release) {
            released++;
          } else {
            deferred++;
          }
        }
        case LEASE_LOST -> leaseLost++;
      }
    }
    heldBack += heldBackRows;
  }

  /**
   * What the destinations' send rates cost: messages a destination throttled (each time it did) and
   * the time batch calls waited for their destination's rate, in all.
   */
  public void paced(long throttledMessages, long waitedMs) {
    throttled = throttledMessages;
    pacedMs = waitedMs;
  }

  /** The invocation's summary. */
  public PollSummary summary(String stoppedBecause, long durationMs) {
    return new PollSummary(
        claimed,
        published,
        retried,
        deadLettered,
        deferred,
        released,
        heldBack,
        leaseLost,
        rounds,
        stoppedBecause,
        durationMs);
  }
}
