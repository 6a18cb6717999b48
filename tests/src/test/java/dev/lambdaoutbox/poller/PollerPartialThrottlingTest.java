package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A destination that throttles every entry of a batch but the first, as SQS and SNS do when a burst
 * meets their limits: the entry it takes reaches the real queue, the others come back in the
 * batch's failed list as {@code RequestThrottled} ({@link EntryRejectingSqsClient}: no real broker
 * can be made to throttle on demand). The real poller runs on the hand-moved clock, invocation
 * after invocation, the invocation's time running down as its calls wait for the send rate.
 * Throttling spends no retry, however long it lasts, so nothing is dead-lettered; the send rate
 * backs off while it lasts, and everything is delivered, once, when it stops.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerPartialThrottlingTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("throttle");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void clean() {
    bed.reset();
  }

  /**
   * Few retries and a short backoff: before throttling spent no retry, 18 of these 30 rows were
   * dead-lettered within four invocations.
   */
  @Test
  void twentySecondsOfPartialThrottling_withFewRetriesAndShortBackoff_deadLettersNothing() {
    String queue = bed.queue("short");
    List<UUID> written = bed.appendEvents("short", 30);
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_MAX_RETRIES", "3",
            "OUTBOX_BACKOFF_BASE_MS", "100",
            "OUTBOX_BACKOFF_MAX_MS", "200");
    EntryRejectingSqsClient sqs = throttlingAllButTheFirst(T0.plusSeconds(20));
    PollerHandler handler = handler(config, sqs);

    int invocations = 0;
    long throttled = 0;
    Instant next = T0;
    while (bed.count(bed.tables.messages()) > 0 && invocations < 200) {
      bed.clock.atLeast(next);
      bed.clearOutput();
      PollSummary summary = bed.invokeOnTheClock(handler, TIMEOUT);
      invocations++;
      throttled += bed.metricLines().get(0).get("Throttled").asLong();
      String when = "after invocation " + invocations + " at " + bed.clock.instant();
      assertThat(summary.deadLettered() + summary.retried()).as(when).isZero();
      assertThat(bed.maxRetryCount()).as(when).isZero();
      next = bed.clock.instant().plusSeconds(1);
    }

    assertThat(bed.count(bed.tables.deadLetters())).isZero();
    assertThat(throttled).as("entries the destination throttled").isPositive();
    assertThat(bed.count(bed.tables.messages())).as("rows left").isZero();
    bed.assertReceivedOnce(queue, written);
    System.out.printf(
        Locale.ROOT,
        "20 s of partial throttling, MaxRetries 3, backoff 100-200 ms: 30 rows delivered in %d"
            + " invocations (%d s simulated), %d entries throttled, 0 dead letters%n",
        invocations,
        Duration.between(T0, bed.clock.instant()).toSeconds(),
        throttled);
  }

  /**
   * Twenty minutes of a one-minute schedule at the default settings (before throttling spent no
   * retry, the first rows were dead-lettered after 17 minutes and 26 of 230 by the twentieth), rows
   * written meanwhile. While it lasts: no retry spent, nothing dead-lettered, and the calls come
   * down to the floor rate. After: everything delivered within a few invocations.
   */
  @Test
  void twentyMinutesOfPartialThrottling_atTheDefaults_deadLettersNothing_andTheRateBacksOff() {
    String queue = bed.queue("long");
    List<UUID> written = new ArrayList<>(bed.appendEvents("before", 200));
    PollerConfig config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue);
    Duration throttling = Duration.ofMinutes(20);
    EntryRejectingSqsClient sqs = throttlingAllButTheFirst(T0.plus(throttling));
    PollerHandler handler = handler(config, sqs);

    long throttled = 0;
    int invocations = 0;
    for (Duration t = Duration.ZERO; t.compareTo(throttling) < 0; t = t.plusMinutes(1)) {
      bed.clock.atLeast(T0.plus(t));
      if (t.toMinutes() > 0 && t.toMinutes() % 5 == 0) {
        written.addAll(bed.appendEvents("during-" + t.toMinutes(), 10));
      }
      bed.clearOutput();
      PollSummary summary = bed.invokeOnTheClock(handler, TIMEOUT);
      invocations++;
      throttled += bed.metricLines().get(0).get("Throttled").asLong();
      String when = "after the invocation at +" + t.toMinutes() + " min";
      assertThat(summary.deadLettered() + summary.retried()).as(when).isZero();
      assertThat(bed.count(bed.tables.deadLetters())).as(when).isZero();
      assertThat(bed.maxRetryCount()).as(when).isZero();
    }
    long sentWhileThrottled = sqs.calls().stream().mapToLong(c -> c.sent()).sum();
    List<EntryRejectingSqsClient.Call> lastTenMinutes =
        sqs.calls().stream().filter(c -> !c.at().isBefore(T0.plusSeconds(600))).toList();

    int drainInvocations = 0;
    Duration t = throttling;
    for (; bed.count(bed.tables.messages()) > 0 && drainInvocations < 15; t = t.plusMinutes(1)) {
      bed.clock.atLeast(T0.plus(t));
      PollSummary summary = bed.invokeOnTheClock(handler, TIMEOUT);
      drainInvocations++;
      assertThat(summary.deadLettered() + summary.retried()).isZero();
    }

    assertThat(bed.count(bed.tables.deadLetters())).isZero();
    assertThat(
            EntryRejectingSqsClient.mostWithin(
                lastTenMinutes, Duration.ofSeconds(10), c -> c.sent() + c.rejected()))
        .as(
            "messages sent within any 10 s of the last 10 minutes of throttling: at the floor"
                + " rate of 1 a second, 10 and one call more, and one more call where a call of a"
                + " single entry went through whole and raised the rate for a moment")
        .isLessThanOrEqualTo(30);
    assertThat(drainInvocations).as("invocations to drain once throttling stopped").isLessThan(5);
    assertThat(bed.count(bed.tables.messages())).as("rows left").isZero();
    bed.assertReceivedOnce(queue, written);
    System.out.printf(
        Locale.ROOT,
        "20 min of partial throttling at the defaults: %d rows, %d invocations a minute apart,"
            + " %d entries throttled, %d rows sent while it lasted (%d calls in its last 10"
            + " minutes, at most %d messages within 10 s), the rest delivered in %d invocations"
            + " after; 0 retries spent, 0 dead letters%n",
        written.size(),
        invocations,
        throttled,
        sentWhileThrottled,
        lastTenMinutes.size(),
        EntryRejectingSqsClient.mostWithin(
            lastTenMinutes, Duration.ofSeconds(10), c -> c.sent() + c.rejected()),
        drainInvocations);
  }

  @Test
  void anInternalFailureOfSomeEntries_spendsNoRetry_andLeavesTheSendRateAlone() {
    String queue = bed.queue("internal");
    List<UUID> written = bed.appendEvents("internal", 20);
    PollerConfig config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue);
    EntryRejectingSqsClient sqs =
        new EntryRejectingSqsClient(
            bed.sqs,
            (index, entry) -> index > 0 && bed.clock.instant().isBefore(T0.plusSeconds(5)),
            "InternalError",
            false,
            bed.clock);
    PollerHandler handler = handler(config, sqs);

    bed.clearOutput();
    PollSummary first = bed.invokeOnTheClock(handler, TIMEOUT);

    assertThat(first.published()).isEqualTo(2);
    assertThat(first.deferred()).isEqualTo(18);
    assertThat(first.retried()).isZero();
    assertThat(bed.maxRetryCount()).isZero();
    assertThat(bed.metricLines().get(0).get("Throttled").asInt()).isZero();
    assertThat(bed.logs("INFO")).noneMatch(l -> l.path("message").asText().contains("throttles"));
    bed.clock.atLeast(T0.plusSeconds(5));
    bed.invokeOnTheClock(handler, TIMEOUT);
    assertThat(bed.count(bed.tables.messages())).as("rows left").isZero();
    bed.assertReceivedOnce(queue, written);
  }

  /** The test bed's SQS client, throttling every entry of a batch but the first until then. */
  private EntryRejectingSqsClient throttlingAllButTheFirst(Instant until) {
    return new EntryRejectingSqsClient(
        bed.sqs,
        (index, entry) -> index > 0 && bed.clock.instant().isBefore(until),
        "RequestThrottled",
        true,
        bed.clock);
  }

  private PollerHandler handler(PollerConfig config, EntryRejectingSqsClient sqs) {
    return bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, sqs));
  }
}
