package dev.lambdaoutbox.poller.internal.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.telemetry.JsonLogger;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The send rates on a hand-moved clock: the schedule they keep, and how throttling moves them. */
class SendRatesTest {
  private static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:orders";
  private static final Duration LONG = Duration.ofHours(1);

  private final HandClock clock = new HandClock(Instant.parse("2026-03-01T10:00:00.000Z"));
  private final ByteArrayOutputStream logs = new ByteArrayOutputStream();
  private final JsonLogger log =
      new JsonLogger(
          "test",
          SendRatesTest.class,
          JsonLogger.Level.INFO,
          new PrintStream(logs, true, StandardCharsets.UTF_8),
          clock);

  @Test
  void perPoller_sharesTheCapAmongThePollersThatMayRunAtOnce_zeroIsNone() {
    assertThat(SendRates.perPoller(100, 1)).isEqualTo(100.0);
    assertThat(SendRates.perPoller(100, 4)).isEqualTo(25.0);
    assertThat(SendRates.perPoller(0, 4)).isInfinite();
  }

  @Test
  void noCap_noThrottling_neverWaits() {
    SendRates rates = new SendRates(Double.POSITIVE_INFINITY, clock, log);

    for (int i = 0; i < 1_000; i++) {
      assertThat(reserve(rates, TOPIC, 10, Duration.ZERO)).isZero();
    }
    assertThat(rates.rate(TOPIC)).isInfinite();
  }

  @Test
  void aCap_spacesTheCalls_soThatNoSecondCarriesMoreThanTheCap() {
    SendRates rates = new SendRates(50, clock, log);
    List<Instant> starts = new ArrayList<>();

    for (int i = 0; i < 100; i++) { // 1,000 messages
      Duration wait = reserve(rates, TOPIC, 10, LONG);
      clock.advance(wait);
      starts.add(clock.instant());
      rates.answered(TOPIC, null);
    }

    assertThat(maxInAnySecond(starts, 10)).isEqualTo(50);
    assertThat(Duration.between(starts.get(0), starts.get(99)))
        .as("the 100th call starts 99 calls' shares after the first")
        .isEqualTo(Duration.ofMillis(99 * 200));
  }

  @Test
  void callsReservedTogether_getConsecutiveSlots_andOneTooFarReservesNothing() {
    SendRates rates = new SendRates(50, clock, log);

    assertThat(reserve(rates, TOPIC, 10, LONG)).isZero();
    assertThat(reserve(rates, TOPIC, 10, LONG)).isEqualTo(Duration.ofMillis(200));
    assertThat(reserve(rates, TOPIC, 10, Duration.ofMillis(399))).isNull();
    assertThat(reserve(rates, TOPIC, 10, Duration.ofMillis(400)))
        .as("the refused call took no slot")
        .isEqualTo(Duration.ofMillis(400));
    assertThat(reserve(rates, "https://sqs.us-east-1.amazonaws.com/123456789012/q", 10, LONG))
        .as("each destination has its own time line")
        .isZero();
  }

  @Test
  void throttling_halvesTheRate_atMostOnceASecond_neverBelowTheFloor() {
    SendRates rates = new SendRates(100, clock, log);

    rates.answered(TOPIC, "Throttling");
    assertThat(rates.rate(TOPIC)).as("from the cap: nothing sent yet measures less").isEqualTo(1);
    rates = new SendRates(100, clock, log);
    sendAtOnce(rates, 100);
    rates.answered(TOPIC, "Throttling");
    assertThat(rates.rate(TOPIC)).isEqualTo(50);
    clock.advance(Duration.ofMillis(999));
    rates.answered(TOPIC, "Throttling");
    assertThat(rates.rate(TOPIC)).as("the same burst's answers").isEqualTo(50);
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(1));
      rates.answered(TOPIC, "Throttling");
    }
    assertThat(rates.rate(TOPIC)).isEqualTo(SendRates.FLOOR);
    assertThat(logs.toString(StandardCharsets.UTF_8))
        .contains("the destination throttles: its send rate is lowered")
        .contains("\"ratePerSecond\":50.0");
  }

  @Test
  void answersWithoutThrottling_raiseTheRateByAStepPerSecondOfSending_upToTheCap() {
    SendRates rates = new SendRates(400, clock, log);
    sendAtOnce(rates, 400);
    rates.answered(TOPIC, "Throttling"); // 400 -> 200; the step is 400 / 20 = 20 a second

    rates.answered(TOPIC, null);
    assertThat(rates.rate(TOPIC)).as("no time since the last answer").isEqualTo(200);
    clock.advance(Duration.ofMinutes(5));
    rates.answered(TOPIC, null);
    assertThat(rates.rate(TOPIC)).as("idle time earns one second at most").isEqualTo(220);
    for (int i = 0; i < 17; i++) {
      clock.advance(Duration.ofMillis(500));
      rates.answered(TOPIC, null);
    }
    assertThat(rates.rate(TOPIC)).isEqualTo(390);
    clock.advance(Duration.ofMillis(500));
    rates.answered(TOPIC, null);
    assertThat(rates.rate(TOPIC)).as("never above the cap").isEqualTo(400);
    assertThat(logs.toString(StandardCharsets.UTF_8)).contains("its send rate is back at the cap");
  }

  @Test
  void noCap_throttlingHalvesTheMeasuredRate_andPacingStopsOnceBackWhereItBegan() {
    SendRates rates = new SendRates(Double.POSITIVE_INFINITY, clock, log);
    sendAtOnce(rates, 800);

    rates.answered(TOPIC, "ThrottlingException");
    assertThat(rates.rate(TOPIC)).isEqualTo(400);
    assertThat(reserve(rates, TOPIC, 10, LONG)).isZero();
    assertThat(reserve(rates, TOPIC, 10, LONG)).isEqualTo(Duration.ofMillis(25));
    for (int i = 0; i < 9; i++) { // the step: 800 / 20 = 40 a second
      clock.advance(Duration.ofSeconds(1));
      rates.answered(TOPIC, null);
    }
    assertThat(rates.rate(TOPIC)).isEqualTo(760);
    clock.advance(Duration.ofSeconds(1));
    rates.answered(TOPIC, null);
    assertThat(rates.rate(TOPIC)).isInfinite();
    assertThat(reserve(rates, TOPIC, 10, Duration.ZERO)).isZero();
  }

  /** How long a call reserved now waits; null when it may not wait that long. */
  private Duration reserve(SendRates rates, String destination, int messages, Duration maxWait) {
    Instant start = rates.reserve(destination, messages, maxWait);
    return start == null ? null : Duration.between(clock.instant(), start);
  }

  /** Calls started at once, as many as {@code messages} in calls of 10. */
  private void sendAtOnce(SendRates rates, int messages) {
    for (int i = 0; i < messages / 10; i++) {
      assertThat(reserve(rates, TOPIC, 10, LONG)).isNotNull();
    }
  }

  /** The most messages (calls of {@code size}) started within any one second. */
  private static int maxInAnySecond(List<Instant> starts, int size) {
    int max = 0;
    for (int i = 0; i < starts.size(); i++) {
      Instant end = starts.get(i).plusSeconds(1);
      int inWindow = 0;
      for (int j = i; j < starts.size() && starts.get(j).isBefore(end); j++) {
        inWindow += size;
      }
      max = Math.max(max, inWindow);
    }
    return max;
  }

  private static final class HandClock extends Clock {
    private Instant now;

    HandClock(Instant start) {
      this.now = start;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
