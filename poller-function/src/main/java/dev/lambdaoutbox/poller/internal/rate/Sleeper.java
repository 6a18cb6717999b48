package dev.lambdaoutbox.poller.internal.rate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** Waits until a time, so that tests on a hand-moved clock can move it there instead. */
@FunctionalInterface
public interface Sleeper {
  /** Returns at {@code until} or later; at once if that has passed. */
  void sleepUntil(Instant until) throws InterruptedException;

  /** The thread sleeps until {@code clock} says {@code until} has come. */
  static Sleeper on(Clock clock) {
    return until -> {
      Duration wait = Duration.between(clock.instant(), until);
      if (wait.isPositive()) {
        Thread.sleep(wait);
      }
    };
  }
}
