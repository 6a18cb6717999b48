package dev.lambdaoutbox.poller.internal.health;

import java.time.Duration;

/**
 * How long a destination found down is left alone before each probe: {@code min(max, min *
 * 2^(n-1))} before the n-th, so a short blip is retried within seconds and a long outage costs one
 * small batch per {@code max}.
 */
public final class ProbeSchedule {
  private final Duration min;
  private final Duration max;

  public ProbeSchedule(Duration min, Duration max) {
    if (min.isNegative() || min.isZero()) {
      throw new IllegalArgumentException("min: must be positive, was " + min);
    }
    if (max.compareTo(min) < 0) {
      throw new IllegalArgumentException("max: must be at least min " + min + ", was " + max);
    }
    this.min = min;
    this.max = max;
  }

  /** The wait before probe {@code n} (1 for the first after the destination was found down). */
  public Duration interval(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n: must be 1 or more, was " + n);
    }
    int shift = Math.min(n - 1, 62);
    long minMillis = min.toMillis();
    long millis = minMillis > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : minMillis << shift;
    return millis >= max.toMillis() ? max : Duration.ofMillis(millis);
  }
}
