package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A backlog drains at {@code OUTBOX_MAX_SEND_RATE}: the real poller on the hand-moved clock, its
 * calls waiting for their slots by moving the clock, sends 500 waiting rows to the real queue, and
 * the calls are timed on that clock as the SQS client sees them (the real client, recording: {@link
 * EntryRejectingSqsClient} refusing nothing). Over any window of T seconds no more than the cap × T
 * go out (its share of the cap with {@code OUTBOX_MAX_CONCURRENT_POLLERS} above 1), plus at most
 * one call's ten when the cap is not a multiple of ten, and the backlog drains at the cap.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerSendRateTest {
  private static final int ROWS = 500;

  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("rate");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @ParameterizedTest(name = "cap {0}/s, {1} poller(s)")
  @CsvSource({"50, 1", "50, 2", "25, 1"})
  void aBacklog_drainsAtTheCap_andNoSecondCarriesMore(int cap, int pollers) {
    bed.reset();
    String queue = bed.queue("capped");
    List<UUID> written = bed.appendEvents("o", ROWS);
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION",
            queue,
            "OUTBOX_MAX_SEND_RATE",
            Integer.toString(cap),
            "OUTBOX_MAX_CONCURRENT_POLLERS",
            Integer.toString(pollers),
            // One call at a time: each is timed at its own slot on the shared clock.
            "OUTBOX_PUBLISH_CONCURRENCY",
            "1");
    EntryRejectingSqsClient sqs =
        new EntryRejectingSqsClient(bed.sqs, (index, entry) -> false, "None", true, bed.clock);
    PollerHandler handler =
        bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, sqs));

    int invocations = 0;
    long pacedMs = 0;
    for (Instant next = T0;
        bed.count(bed.tables.messages()) > 0 && invocations < 10;
        next = next.plus(Duration.ofMinutes(1))) {
      bed.clock.atLeast(next);
      bed.clearOutput();
      bed.invokeOnTheClock(handler, Duration.ofSeconds(60));
      pacedMs += bed.metricLines().get(0).get("pacedMs").asLong();
      invocations++;
    }

    double share = (double) cap / pollers;
    List<EntryRejectingSqsClient.Call> calls = sqs.calls();
    long sent = calls.stream().mapToLong(EntryRejectingSqsClient.Call::sent).sum();
    Duration span = Duration.between(calls.get(0).at(), calls.get(calls.size() - 1).at());
    // The last call's messages are on their way when it starts: the rate is of those before it.
    double achieved = (sent - calls.get(calls.size() - 1).sent()) / (span.toNanos() / 1e9);
    assertThat(sent).isEqualTo(ROWS);
    for (int seconds : new int[] {1, 10}) {
      assertThat(
              (double)
                  EntryRejectingSqsClient.mostWithin(
                      calls, Duration.ofSeconds(seconds), EntryRejectingSqsClient.Call::sent))
          .as("messages in any %d s", seconds)
          .isLessThanOrEqualTo(share * seconds + (share % 10 == 0 ? 0 : 10));
    }
    assertThat(achieved).as("the backlog's drain rate").isBetween(0.9 * share, share);
    assertThat(pacedMs).as("time the calls waited").isPositive();
    assertThat(bed.count(bed.tables.messages())).as("rows left").isZero();
    bed.assertReceivedOnce(queue, written);
    System.out.printf(
        Locale.ROOT,
        "cap %d/s over %d poller(s): %d rows in %d calls over %.1f simulated s, %d invocation(s):"
            + " %.1f messages/s against %.1f configured for this poller, at most %d in any"
            + " second, %d in any 10 s%n",
        cap,
        pollers,
        sent,
        calls.size(),
        span.toMillis() / 1000.0,
        invocations,
        achieved,
        share,
        EntryRejectingSqsClient.mostWithin(
            calls, Duration.ofSeconds(1), EntryRejectingSqsClient.Call::sent),
        EntryRejectingSqsClient.mostWithin(
            calls, Duration.ofSeconds(10), EntryRejectingSqsClient.Call::sent));
  }
}
