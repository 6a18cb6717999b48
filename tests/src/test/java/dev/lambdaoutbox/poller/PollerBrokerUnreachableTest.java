package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.writer.OutboxEvent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The SNS/SQS endpoint cannot be reached (a closed loopback port): rows are retried with growing
 * delays and dead-lettered only at the retry limit, and an invocation stops at the first sign of
 * the outage instead of burning every row's retries.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerBrokerUnreachableTest {
  private PollerTestBed bed;
  private SnsClient deadSns;
  private SqsClient deadSqs;

  @BeforeAll
  void start() throws IOException {
    bed = new PollerTestBed("unreachable");
    URI closed = URI.create("http://127.0.0.1:" + closedPort());
    deadSns = bed.closeLater(PollerTestBed.sns(closed, Duration.ofSeconds(2)));
    deadSqs = bed.closeLater(PollerTestBed.sqs(closed, Duration.ofSeconds(2)));
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @Test
  void retries_waitLongerEachTime_thenTheRowIsDeadLetteredAtTheLimit() {
    String queue = "http://127.0.0.1:4566/123456789012/never-reached";
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_MAX_RETRIES", "3",
            "OUTBOX_BACKOFF_BASE_MS", "1000",
            "OUTBOX_BACKOFF_MAX_MS", "60000");
    PollerHandler handler = unreachableHandler(config);
    UUID id = bed.append(event("order.created", "o-1").build()).get(0);

    Duration previous = Duration.ZERO;
    for (int retry = 1; retry <= 3; retry++) {
      PollSummary summary = bed.invoke(handler);

      assertThat(summary.retried()).as("invocation %d", retry).isEqualTo(1);
      assertThat(summary.stoppedBecause()).isEqualTo("broker-unreachable");
      Map<String, Object> row = bed.outboxRow(id);
      assertThat(row.get("retry_count")).isEqualTo(retry);
      assertThat(row.get("last_error_code")).isEqualTo("ConnectionError");
      assertThat(bed.count(bed.tables.deadLetters())).isZero();
      Duration delay = Duration.between(bed.clock.instant(), (Instant) row.get("next_attempt_at"));
      Duration ceiling = Duration.ofSeconds(1L << (retry - 1));
      assertThat(delay).isBetween(ceiling.dividedBy(2), ceiling);
      assertThat(delay).isGreaterThanOrEqualTo(previous);
      previous = delay;

      bed.clock.advance(delay.minusMillis(1));
      assertThat(bed.invoke(handler).claimed()).as("not due yet").isZero();
      bed.clock.advance(Duration.ofMillis(1));
    }

    PollSummary last = bed.invoke(handler);

    assertThat(last.deadLettered()).isEqualTo(1);
    assertThat(bed.outboxRow(id)).isNull();
    Map<String, Object> dead = bed.deadLetter(id);
    assertThat(dead.get("error_code")).isEqualTo("ConnectionError");
    assertThat(dead.get("attempts")).isEqualTo(4);
    assertThat((String) dead.get("error_reason")).contains("gave up after 4 attempts");
    assertThat(bed.logs("ERROR"))
        .singleElement()
        .satisfies(l -> assertThat(l.get("attempts").asInt()).isEqualTo(4));
  }

  @Test
  void outage_opensTheBreaker_onlyTheFirstBatchSpendsAnAttempt_andNothingIsLost() {
    String queue = bed.queue("after-outage");
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_BATCH_SIZE", "25",
            "OUTBOX_PUBLISH_CONCURRENCY", "1",
            "OUTBOX_LEASE_SECONDS", "60");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      events.add(event("order.created", "o-" + i).build());
    }
    List<UUID> ids = bed.append(events.toArray(OutboxEvent[]::new));

    PollSummary outage = bed.invoke(unreachableHandler(config));

    assertThat(outage.claimed()).isEqualTo(25);
    assertThat(outage.retried()).isEqualTo(10);
    assertThat(outage.notAttempted()).isEqualTo(15);
    assertThat(outage.rounds()).isEqualTo(1);
    assertThat(outage.stoppedBecause()).isEqualTo("broker-unreachable");
    long spent = ids.stream().filter(id -> (int) bed.outboxRow(id).get("retry_count") > 0).count();
    assertThat(spent).isEqualTo(10);
    assertThat(bed.count(bed.tables.deadLetters())).isZero();

    bed.clock.advance(Duration.ofSeconds(61)); // past every lease and backoff
    PollSummary recovered = bed.invoke(bed.handler(config));

    assertThat(recovered.published()).isEqualTo(40);
    assertThat(bed.receive(queue, 40))
        .extracting(m -> attribute(m, "eventId"))
        .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
  }

  private PollerHandler unreachableHandler(PollerConfig config) {
    return bed.handler(config, bed.store(config), bed.publisher(config, deadSns, deadSqs));
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
