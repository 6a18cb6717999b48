package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.rate.SendRates;
import dev.lambdaoutbox.poller.internal.rate.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * One invocation's side of the container's send rates ({@link SendRates}): holds each batch call
 * until its destination's rate lets it start, tells the rates what each call came back with, and
 * counts what pacing cost: the time calls waited, the messages throttled, and whether a call found
 * no slot before the time ran out (the invocation then claims no more). Thread-safe: the batch
 * calls of a round run in parallel.
 */
final class Pacing {
  private final SendRates rates;
  private final Sleeper sleeper;
  private final Clock clock;
  private final LongAdder waitedNanos = new LongAdder();
  private final LongAdder throttled = new LongAdder();
  private volatile boolean ranOut;

  Pacing(SendRates rates, Sleeper sleeper, Clock clock) {
    this.rates = rates;
    this.sleeper = sleeper;
    this.clock = clock;
  }

  /**
   * Waits until a call of {@code messages} to {@code destination} may start, if that is within
   * {@code allowanceMillis}: null then; otherwise the refusal that leaves its messages unsent.
   */
  Delivery.Refusal pace(String destination, int messages, long allowanceMillis) {
    Instant start =
        allowanceMillis < 0
            ? null
            : rates.reserve(destination, messages, Duration.ofMillis(allowanceMillis));
    if (start == null) {
      ranOut = true;
      return new Delivery.Refusal(
          Delivery.Why.TIME_SHORT,
          String.format(
              Locale.ROOT,
              "not sent: at its destination's send rate (%.1f messages/s) the call could not start"
                  + " before the timeout or the lease ends",
              rates.rate(destination)));
    }
    Duration wait = Duration.between(clock.instant(), start);
    if (!wait.isPositive()) {
      return null;
    }
    try {
      sleeper.sleepUntil(start);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ranOut = true;
      return new Delivery.Refusal(
          Delivery.Why.TIME_SHORT, "not sent: interrupted while waiting for the send rate");
    }
    waitedNanos.add(wait.toNanos());
    return null;
  }

  /** A call came back: the rates hear whether it, or any entry of it, was throttled. */
  void answered(String destination, List<Delivery> deliveries) {
    String throttleCode = null;
    int count = 0;
    for (Delivery d : deliveries) {
      if (d instanceof Delivery.Failed f && f.failure().throttled()) {
        throttleCode = f.failure().code();
        count++;
      }
    }
    throttled.add(count);
    rates.answered(destination, throttleCode);
  }

  /** Whether a call found no slot before the time ran out: claiming more would be in vain. */
  boolean ranOut() {
    return ranOut;
  }

  /** The time calls waited for their destinations' rates, in all (they wait in parallel). */
  long waitedMillis() {
    return waitedNanos.sum() / 1_000_000;
  }

  /** Messages a destination throttled, each time it did. */
  long throttled() {
    return throttled.sum();
  }
}
