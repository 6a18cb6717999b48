package dev.lambdaoutbox.poller.internal.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static final Duration BASE = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofMinutes(5);

  @Test
  void ceiling_doublesFromBaseUntilTheCap() {
    Backoff backoff = new Backoff(BASE, MAX, new SplittableRandom(1));

    assertThat(backoff.ceiling(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.ceiling(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(backoff.ceiling(5)).isEqualTo(Duration.ofSeconds(16));
    assertThat(backoff.ceiling(9)).isEqualTo(Duration.ofSeconds(256));
    assertThat(backoff.ceiling(10)).isEqualTo(MAX);
    assertThat(backoff.ceiling(1_000)).isEqualTo(MAX);
  }

  @Test
  void delay_staysBetweenHalfTheCeilingAndTheCeiling() {
    Backoff backoff = new Backoff(BASE, MAX, new SplittableRandom(42));

    for (int retry = 1; retry <= 20; retry++) {
      Duration ceiling = backoff.ceiling(retry);
      for (int i = 0; i < 200; i++) {
        assertThat(backoff.delay(retry)).isBetween(ceiling.dividedBy(2), ceiling);
      }
    }
  }

  @Test
  void delay_belowTheCap_nextRetryNeverWaitsLessThanThisOne() {
    Backoff backoff = new Backoff(BASE, MAX, new SplittableRandom(7));

    for (int retry = 1; backoff.ceiling(retry + 1).compareTo(MAX) < 0; retry++) {
      Duration longestNow = backoff.ceiling(retry);
      Duration shortestNext = backoff.ceiling(retry + 1).dividedBy(2);
      assertThat(shortestNext).isGreaterThanOrEqualTo(longestNow);
    }
  }

  @Test
  void delay_isJittered_notTheSameForEveryRow() {
    Backoff backoff = new Backoff(BASE, MAX, new SplittableRandom(3));

    assertThat(IntStream.range(0, 50).mapToObj(i -> backoff.delay(6)).distinct())
        .hasSizeGreaterThan(10);
  }

  @Test
  void delay_followsTheRandomSource_atItsExtremes() {
    RandomGenerator lowest = boundedTo(0);
    RandomGenerator highest = boundedTo(-1);

    assertThat(new Backoff(BASE, MAX, lowest).delay(4)).isEqualTo(Duration.ofSeconds(4));
    assertThat(new Backoff(BASE, MAX, highest).delay(4)).isEqualTo(Duration.ofSeconds(8));
  }

  /** A source whose bounded longs are always 0, or always the bound minus one (for -1). */
  private static RandomGenerator boundedTo(long which) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return 0;
      }

      @Override
      public long nextLong(long bound) {
        return which < 0 ? bound - 1 : which;
      }
    };
  }
}
