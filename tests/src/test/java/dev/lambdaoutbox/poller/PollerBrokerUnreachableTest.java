package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
 * Failures of the transport or the service spend no retries; only failures that belong to one
 * message do. The SNS/SQS endpoint that cannot be reached is a closed loopback port (real
 * connection refusals). A transient failure of one entry while the rest of its batch goes through
 * comes from {@link EntryRejectingSqsClient}: LocalStack never fails a single entry transiently,
 * real SQS does.
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
  void outage_spendsNoRetries_isProbedWithOneBatch_andEverythingFlowsWhenItIsBack() {
    String queue = bed.queue("after-outage");
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_BATCH_SIZE", "25",
            "OUTBOX_PUBLISH_CONCURRENCY", "1",
            "OUTBOX_MAX_RETRIES", "0");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      events.add(event("order.created", "o-" + i).build());
    }
    List<UUID> ids = bed.append(events.toArray(OutboxEvent[]::new));
    PollerHandler unreachable = unreachableHandler(config);

    PollSummary found = bed.invoke(unreachable);

    assertThat(found.claimed()).isEqualTo(40);
    assertThat(found.deferred()).isEqualTo(40);
    assertThat(found.retried() + found.deadLettered()).isZero();
    assertNoRetrySpent(ids);
    Map<String, Object> health = healthRow();
    assertThat(health.get("state")).isEqualTo("UNAVAILABLE");
    assertThat(health.get("error_code")).isEqualTo("ConnectionError");
    Instant firstProbe = (Instant) health.get("next_probe_at");
    assertThat(firstProbe).isEqualTo(PollerTestBed.T0.plusSeconds(5));
    assertThat(bed.outboxRow(ids.get(0)).get("next_attempt_at")).isEqualTo(firstProbe);
    assertThat(bed.outboxRow(ids.get(0)).get("last_error_code")).isEqualTo("ConnectionError");
    assertThat(warnings("destination unavailable")).hasSize(1);
    assertThat(bed.invoke(unreachable).claimed()).as("nothing due before the probe").isZero();

    bed.clock.set(firstProbe);
    PollSummary probed = bed.invoke(unreachable);

    assertThat(probed.deferred()).isEqualTo(40);
    assertThat(probed.retried() + probed.deadLettered()).isZero();
    assertNoRetrySpent(ids);
    assertThat(healthRow().get("failed_probes")).isEqualTo(1);
    assertThat(healthRow().get("next_probe_at")).isEqualTo(firstProbe.plusSeconds(5));
    assertThat(warnings("destination unavailable")).as("logged once, not per probe").hasSize(1);
    assertThat(bed.count(bed.tables.deadLetters())).isZero();

    bed.clock.set(firstProbe.plusSeconds(5));
    PollSummary recovered = bed.invoke(bed.handler(config));

    assertThat(recovered.published()).isEqualTo(40);
    assertThat(bed.count(bed.tables.destinationHealth())).isZero();
    assertThat(bed.count(bed.tables.messages())).isZero();
    assertThat(bed.receive(queue, 40))
        .extracting(m -> attribute(m, "eventId"))
        .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
    assertThat(bed.logs("INFO"))
        .anySatisfy(
            l -> assertThat(l.get("message").asText()).startsWith("destination available again"));
    assertThat(bed.logs("ERROR")).isEmpty();
  }

  @Test
  void everyEntryOfABatchFailingTransiently_isTheDestinationUnavailable_noRetrySpent() {
    String queue = bed.queue("all-throttled");
    PollerConfig config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue);
    List<UUID> ids =
        bed.append(event("order.created", "o-1").build(), event("order.created", "o-2").build());
    EntryRejectingSqsClient throttlingAll =
        new EntryRejectingSqsClient(bed.sqs, entry -> true, "Throttling", false);

    PollSummary summary =
        bed.invoke(
            bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, throttlingAll)));

    assertThat(summary.deferred()).isEqualTo(2);
    assertThat(summary.retried()).isZero();
    assertNoRetrySpent(ids);
    assertThat(healthRow().get("error_code")).isEqualTo("Throttling");
  }

  /**
   * A code nobody knows, not said to be the service's fault, on one entry while the rest go
   * through: the message's own, for all anyone can tell. (Throttling and internal failures of one
   * entry spend no retry: {@link PollerPartialThrottlingTest}.)
   */
  @Test
  void
      entryFailingForAnUnknownReasonWhileItsBatchGoesThrough_spendsRetries_deadLettersAtTheLimit() {
    String queue = bed.queue("one-entry");
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_MAX_RETRIES", "3",
            "OUTBOX_BACKOFF_BASE_MS", "1000",
            "OUTBOX_BACKOFF_MAX_MS", "60000");
    UUID id = bed.append(event("order.created", "o-bad").build()).get(0);
    EntryRejectingSqsClient rejectingOne =
        new EntryRejectingSqsClient(
            bed.sqs, entry -> entry.id().equals(id.toString()), "SomethingNew", true);
    PollerHandler handler =
        bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, rejectingOne));

    Duration previous = Duration.ZERO;
    for (int retry = 1; retry <= 3; retry++) {
      bed.append(event("order.created", "companion-" + retry).build()); // goes through beside it
      PollSummary summary = bed.invoke(handler);

      assertThat(summary.retried()).as("invocation %d", retry).isEqualTo(1);
      assertThat(summary.published()).isEqualTo(1);
      Map<String, Object> row = bed.outboxRow(id);
      assertThat(row.get("retry_count")).isEqualTo(retry);
      assertThat(row.get("last_error_code")).isEqualTo("SomethingNew");
      Duration delay = Duration.between(bed.clock.instant(), (Instant) row.get("next_attempt_at"));
      Duration ceiling = Duration.ofSeconds(1L << (retry - 1));
      assertThat(delay).isBetween(ceiling.dividedBy(2), ceiling);
      assertThat(delay).isGreaterThanOrEqualTo(previous);
      previous = delay;
      bed.clock.advance(delay);
    }
    bed.append(event("order.created", "companion-last").build());

    PollSummary last = bed.invoke(handler);

    assertThat(last.deadLettered()).isEqualTo(1);
    assertThat(bed.outboxRow(id)).isNull();
    Map<String, Object> dead = bed.deadLetter(id);
    assertThat(dead.get("error_code")).isEqualTo("SomethingNew");
    assertThat(dead.get("attempts")).isEqualTo(4);
    assertThat((String) dead.get("error_reason")).contains("gave up after 4 attempts");
    assertThat(bed.logs("ERROR"))
        .singleElement()
        .satisfies(l -> assertThat(l.get("attempts").asInt()).isEqualTo(4));
    assertThat(bed.count(bed.tables.destinationHealth())).isZero();
  }

  private void assertNoRetrySpent(List<UUID> ids) {
    for (UUID id : ids) {
      assertThat(bed.outboxRow(id).get("retry_count")).as("retry_count of %s", id).isEqualTo(0);
    }
  }

  private Map<String, Object> healthRow() {
    List<Map<String, Object>> rows = bed.rows(bed.tables.destinationHealth());
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private List<JsonNode> warnings(String prefix) {
    return bed.logs("WARN").stream()
        .filter(l -> l.get("message").asText().startsWith(prefix))
        .toList();
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
