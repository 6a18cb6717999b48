package dev.lambdaoutbox.poller.internal.fanout;

import dev.lambdaoutbox.poller.PollSummary;

/**
 * How many more invocations a backlog needs: as many as it takes for the due rows to be published
 * before the invocations' timeout, at the rate one invocation publishes, and at most {@code
 * OUTBOX_MAX_CONCURRENT_POLLERS} in all (this one included).
 *
 * <p>The rate is what this container measured itself: published rows per second of an earlier
 * invocation that had at least two full batches to publish (less work says more about the fixed
 * costs than the rate). Its duration includes any idle polling, so the figure errs low, which errs
 * towards more help. Until such an invocation has run, {@link #ASSUMED_EVENTS_PER_SECOND}.
 */
public final class FanOutDecision {
  /** The rate assumed for one invocation before this container has measured one. */
  public static final double ASSUMED_EVENTS_PER_SECOND = 500;

  private final int maxConcurrentPollers;
  private final int batchSize;
  private volatile double eventsPerSecond;

  public FanOutDecision(int maxConcurrentPollers, int batchSize, double eventsPerSecond) {
    if (maxConcurrentPollers < 1) {
      throw new IllegalArgumentException(
          "maxConcurrentPollers: must be at least 1, was " + maxConcurrentPollers);
    }
    if (!(eventsPerSecond > 0)) {
      throw new IllegalArgumentException(
          "eventsPerSecond: must be positive, was " + eventsPerSecond);
    }
    this.maxConcurrentPollers = maxConcurrentPollers;
    this.batchSize = batchSize;
    this.eventsPerSecond = eventsPerSecond;
  }

  /**
   * Whether this ever starts another invocation ({@code OUTBOX_MAX_CONCURRENT_POLLERS} above 1).
   */
  public boolean enabled() {
    return maxConcurrentPollers > 1;
  }

  /** Rows one invocation publishes in {@code usableMillis}, at the current rate; at least 1. */
  public long capacity(long usableMillis) {
    return Math.max(1, (long) (eventsPerSecond * Math.max(0, usableMillis) / 1000.0));
  }

  /**
   * How many due rows are worth counting: enough to tell that every allowed invocation would be
   * busy, one more than they could publish together.
   */
  public int countLimit(long usableMillis) {
    return (int) Math.min(Integer.MAX_VALUE - 1, capacity(usableMillis) * maxConcurrentPollers) + 1;
  }

  /**
   * Further invocations to start for {@code dueRows}, given {@code usableMillis} of publishing time
   * each: zero when this invocation can publish them all itself.
   */
  public int extraInvocations(long dueRows, long usableMillis) {
    if (!enabled() || dueRows <= 0) {
      return 0;
    }
    long needed = (dueRows + capacity(usableMillis) - 1) / capacity(usableMillis);
    return (int) Math.min(maxConcurrentPollers - 1, Math.max(0, needed - 1));
  }

  /** Learns this container's rate from an invocation that had a backlog to publish. */
  public void observed(PollSummary summary) {
    if (summary.published() >= 2L * batchSize && summary.durationMs() > 0) {
      eventsPerSecond = summary.published() * 1000.0 / summary.durationMs();
    }
  }

  /** The rate the next decision uses, events per second. */
  public double eventsPerSecond() {
    return eventsPerSecond;
  }
}
