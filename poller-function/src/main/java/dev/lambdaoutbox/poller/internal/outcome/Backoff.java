package dev.lambdaoutbox.poller.internal.outcome;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with jitter. Retry {@code n} (1 for the first retry) waits a random
 * time between half and all of {@code min(max, base * 2^(n-1))}: delays grow with each failure,
 * never exceed the cap, and rows that failed together spread out instead of returning together.
 *
 * <p>Because the lower bound of retry {@code n+1} equals the upper bound of retry {@code n}, a
 * row's delays never shrink until the cap is reached.
 */
public final class Backoff {
  private final Duration base;
  private final Duration max;
  private final RandomGenerator random;

  public Backoff(Duration base, Duration max, RandomGenerator random) {
    if (base.isNegative() || base.isZero()) {
      throw new IllegalArgumentException("base: must be positive, was " + base);
    }
    if (max.compareTo(base) < 0) {
      throw new IllegalArgumentException("max: must be at least base " + base + ", was " + max);
    }
    this.base = base;
    this.max = max;
    this.random = Objects.requireNonNull(random, "random");
  }

  /** The ceiling of retry {@code retry}: {@code min(max, base * 2^(retry-1))}. */
  public Duration ceiling(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry: must be 1 or more, was " + retry);
    }
    int shift = Math.min(retry - 1, 62);
    long baseMillis = base.toMillis();
    long millis = baseMillis > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : baseMillis << shift;
    return millis >= max.toMillis() ? max : Duration.ofMillis(millis);
  }

  /** The wait before retry {@code retry}, jittered within [ceiling/2, ceiling]. */
  public Duration delay(int retry) {
    long ceiling = ceiling(retry).toMillis();
    long half = ceiling / 2;
    long jitter;
    synchronized (random) { // most RandomGenerators are not thread-safe
      jitter = random.nextLong(ceiling - half + 1);
    }
    return Duration.ofMillis(half + jitter);
  }
}
