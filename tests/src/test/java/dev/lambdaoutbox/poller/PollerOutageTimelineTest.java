package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.testing.TcpForwarder;
import dev.lambdaoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A six-hour broker outage as a one-minute schedule lives it. The real poller (wired as Lambda
 * wires it, on the hand-moved clock, with the default retry, backoff and probe settings) is invoked
 * once per simulated minute for six simulated hours against an SNS/SQS endpoint that refuses
 * connections ({@link TcpForwarder}, down), while rows keep being committed; then the endpoint
 * comes back at the same address. After every invocation: nothing dead-lettered, no retry spent,
 * the destination reported down and {@code OldestUnpublishedAgeSeconds} in the EMF line higher than
 * the invocation before. After recovery: every row delivered to the queue, nothing left behind.
 */
class PollerOutageTimelineTest {
  private static final Duration SCHEDULE = Duration.ofMinutes(1);
  private static final Duration OUTAGE = Duration.ofHours(6);
  private static final int ROWS_BEFORE = 200;
  private static final int ROWS_EVERY_HALF_HOUR = 10;

  @ParameterizedTest(name = "{index}")
  @MethodSource("dev.lambdaoutbox.poller.PollerTestBed#bothDatabases")
  void sixHourOutage_deadLettersNothing_spendsNoRetry_andEverythingIsDeliveredAfter(
      Supplier<TestDatabase> database) throws Exception {
    TestDatabase db = database.get();
    try (PollerTestBed bed = new PollerTestBed("outage", db);
        TcpForwarder endpoint = TcpForwarder.to(bed.aws.endpoint())) {
      String queue = bed.queue("outage");
      SnsClient sns = bed.closeLater(PollerTestBed.sns(endpoint.uri(), Duration.ofSeconds(5)));
      SqsClient sqs = bed.closeLater(PollerTestBed.sqs(endpoint.uri(), Duration.ofSeconds(5)));
      PollerConfig config =
          bed.config("OUTBOX_DEFAULT_DESTINATION", queue, "OUTBOX_LOG_LEVEL", "INFO");
      PollerHandler handler =
          bed.handler(config, bed.store(config), bed.publisher(config, sns, sqs));
      Instant start = bed.clock.instant();
      List<UUID> written = new ArrayList<>(bed.appendEvents("before", ROWS_BEFORE));
      endpoint.down();

      int invocations = 0;
      long claims = 0;
      long deferred = 0;
      int errorLines = 0;
      int warnLines = 0;
      double previousAge = -1;
      long outageStarted = System.nanoTime();
      for (Duration t = Duration.ZERO; t.compareTo(OUTAGE) < 0; t = t.plus(SCHEDULE)) {
        bed.clock.set(start.plus(t));
        if (t.toMinutes() > 0 && t.toMinutes() % 30 == 0) {
          written.addAll(bed.appendEvents("during-" + t.toMinutes(), ROWS_EVERY_HALF_HOUR));
        }
        bed.clearOutput();
        PollSummary summary = bed.invoke(handler);
        invocations++;
        claims += summary.claimed();
        deferred += summary.deferred();
        JsonNode metrics = bed.metricLines().get(0);
        errorLines += bed.logs("ERROR").size();
        warnLines += bed.logs("WARN").size();

        String when = "after the invocation at +" + t.toMinutes() + " min";
        assertThat(summary.deadLettered() + summary.retried()).as(when).isZero();
        assertThat(summary.published()).as(when).isZero();
        assertThat(bed.count(bed.tables.deadLetters())).as(when).isZero();
        assertThat(bed.maxRetryCount()).as(when).isZero();
        assertThat(metrics.get("DestinationsDown").asInt()).as(when).isEqualTo(1);
        assertThat(metrics.get("DeadLettered").asInt()).as(when).isZero();
        double age = metrics.get("OldestUnpublishedAgeSeconds").asDouble();
        assertThat(age).as(when).isGreaterThan(previousAge);
        previousAge = age;
      }
      double outageWallSeconds = (System.nanoTime() - outageStarted) / 1e9;
      assertThat(previousAge).isEqualTo(OUTAGE.minus(SCHEDULE).toSeconds());
      assertThat(errorLines).as("an outage is no operator error").isZero();
      assertThat(warnLines).as("one WARN when the destination was found down").isEqualTo(1);

      endpoint.up();
      Instant back = start.plus(OUTAGE);
      int drainInvocations = 0;
      Duration drainTime = null;
      for (Duration t = Duration.ZERO;
          drainTime == null && t.compareTo(Duration.ofMinutes(10)) <= 0;
          t = t.plus(SCHEDULE)) {
        bed.clock.set(back.plus(t));
        bed.clearOutput();
        bed.invoke(handler);
        drainInvocations++;
        if (bed.count(bed.tables.messages()) == 0) {
          drainTime = t;
          assertThat(bed.metricLines().get(0).get("DestinationsDown").asInt()).isZero();
          assertThat(bed.metricLines().get(0).get("OldestUnpublishedAgeSeconds").asDouble())
              .isZero();
        }
      }

      assertThat(drainTime)
          .as("drained within the longest probe interval plus one schedule period")
          .isNotNull()
          .isLessThanOrEqualTo(config.retry().probeIntervalMax().plus(SCHEDULE));
      assertThat(bed.count(bed.tables.deadLetters())).isZero();
      assertThat(bed.count(bed.tables.destinationHealth())).isZero();
      bed.assertReceivedOnce(queue, written);

      System.out.printf(
          Locale.ROOT,
          "outage timeline on %s: %d rows (%d before the outage, %d during it), %.0f simulated"
              + " hours, %d invocations a minute apart, %d dead letters, %d retries spent;"
              + " deferral cost %d row claims and %d row updates (%.0f per invocation);"
              + " the endpoint back, drained in %d invocations (%d simulated s); outage phase"
              + " took %.1f s of wall time%n",
          db.name(),
          written.size(),
          ROWS_BEFORE,
          written.size() - ROWS_BEFORE,
          OUTAGE.toMinutes() / 60.0,
          invocations,
          bed.count(bed.tables.deadLetters()),
          0,
          claims,
          deferred,
          claims / (double) invocations,
          drainInvocations,
          drainTime.toSeconds(),
          outageWallSeconds);
    }
  }
}
