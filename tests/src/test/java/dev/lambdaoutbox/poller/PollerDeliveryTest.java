package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.model.Message;

/** Rows reach SNS (and a raw-delivery SQS subscriber) or SQS once each, as written. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerDeliveryTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("delivery");
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
  void snsTopicWithRawSqsSubscriber_receivesEachEventOnce_withItsAttributesAndPayload() {
    String topic = bed.topic("orders");
    String queue = bed.queue("orders-sub");
    bed.subscribeRaw(topic, queue);
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      events.add(
          event("order.created", "o-" + i)
              .payload("{ \"n\" : " + i + ", \"note\": \"Zoë ✓\" }")
              .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
              .build());
    }
    bed.append(events.toArray(OutboxEvent[]::new));

    PollSummary summary = bed.invoke(bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", topic)));

    assertThat(summary.claimed()).isEqualTo(25);
    assertThat(summary.published()).isEqualTo(25);
    assertThat(summary.retried() + summary.deferred() + summary.deadLettered()).isZero();
    List<Message> received = bed.receive(queue, 25);
    assertThat(received).hasSize(25);
    Map<String, Message> byEventId = new HashMap<>();
    received.forEach(m -> byEventId.put(attribute(m, "eventId"), m));
    assertThat(byEventId).hasSize(25);
    for (OutboxEvent e : events) {
      Message m = byEventId.get(e.id().toString());
      assertThat(m.body()).isEqualTo(e.payload());
      assertThat(attribute(m, "eventType")).isEqualTo("order.created");
      assertThat(attribute(m, "aggregateType")).isEqualTo("order");
      assertThat(attribute(m, "aggregateId")).isEqualTo(e.aggregateId());
      assertThat(attribute(m, "occurredAt")).isEqualTo(e.occurredAt().toString());
      assertThat(attribute(m, "traceparent")).isEqualTo(e.headers().get("traceparent"));
      assertThat(m.messageAttributes().get("eventId").dataType()).isEqualTo("String");
    }
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  @Test
  void sqsQueue_receivesEachEventOnce() {
    String queue = bed.queue("direct");
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      ids.addAll(bed.append(event("invoice.issued", "i-" + i).build()));
    }

    PollSummary summary = bed.invoke(bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", queue)));

    assertThat(summary.published()).isEqualTo(12);
    List<Message> received = bed.receive(queue, 12);
    assertThat(received)
        .extracting(m -> attribute(m, "eventId"))
        .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
  }

  @Test
  void invocation_writesOneEmfLineWithEveryMetric_andNoErrorLogs() {
    String queue = bed.queue("metrics");
    bed.append(event("invoice.issued", "i-1").build(), event("invoice.issued", "i-2").build());

    bed.invoke(bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", queue)));

    List<JsonNode> metrics = bed.metricLines();
    assertThat(metrics).hasSize(1);
    JsonNode line = metrics.get(0);
    assertThat(line.get("Service").asText()).isEqualTo("outbox-poller");
    assertThat(line.at("/_aws/CloudWatchMetrics/0/Namespace").asText()).isEqualTo("LambdaOutbox");
    assertThat(line.get("Claimed").asInt()).isEqualTo(2);
    assertThat(line.get("Published").asInt()).isEqualTo(2);
    assertThat(line.get("PublishLatencyMs")).as("written and published at T0").hasSize(2);
    line.get("PublishLatencyMs").forEach(v -> assertThat(v.asLong()).isZero());
    assertThat(line.get("Retried").asInt()).isZero();
    assertThat(line.get("DeadLettered").asInt()).isZero();
    assertThat(line.get("Deferred").asInt()).isZero();
    assertThat(line.get("Released").asInt()).isZero();
    assertThat(line.get("LeaseLost").asInt()).isZero();
    assertThat(line.get("Throttled").asInt()).isZero();
    assertThat(line.get("pacedMs").asLong()).isZero();
    assertThat(line.get("OldestUnpublishedAgeSeconds").asDouble()).isZero();
    assertThat(line.get("DeadLetterBacklog").asInt()).isZero();
    assertThat(line.get("deadLetterBacklogCapped").asBoolean()).isFalse();
    assertThat(line.get("DestinationsDown").asInt()).isZero();
    assertThat(line.get("DestinationsMisconfigured").asInt()).isZero();
    assertThat(line.get("WaitingOnMisconfigured").asInt()).isZero();
    assertThat(line.has("DurationMs")).isTrue();
    assertThat(line.has("Failed")).as("a metric named for what it counts").isFalse();
    List<String> declared = new ArrayList<>();
    line.at("/_aws/CloudWatchMetrics/0/Metrics").forEach(m -> declared.add(m.get("Name").asText()));
    assertThat(declared)
        .containsExactly(
            "Claimed",
            "Published",
            "PublishLatencyMs",
            "Retried",
            "DeadLettered",
            "Deferred",
            "Released",
            "LeaseLost",
            "Throttled",
            "OldestUnpublishedAgeSeconds",
            "DeadLetterBacklog",
            "DestinationsDown",
            "DestinationsMisconfigured",
            "WaitingOnMisconfigured",
            "ParkedKeys",
            "ParkedEvents",
            "DurationMs");
    assertThat(line.get("ParkedKeys").asInt()).isZero();
    assertThat(line.get("ParkedEvents").asInt()).isZero();
    assertThat(bed.logs("ERROR")).isEmpty();
  }

  /** On the real clock: a row written some time ago reports at least that long, and no longer. */
  @Test
  void publishLatency_onTheRealClock_isAtLeastTheRowsAge_andAtMostTheTimeSinceItWasWritten()
      throws Exception {
    String queue = bed.queue("latency");
    long before = System.currentTimeMillis();
    bed.append(
        OutboxWriter.builder().tables(bed.tables).build(),
        List.of(event("invoice.issued", "i-1").build()));
    long written = System.currentTimeMillis();
    Thread.sleep(300);

    bed.invoke(bed.realTimeHandler(bed.config("OUTBOX_DEFAULT_DESTINATION", queue), bed.sqs));
    long after = System.currentTimeMillis();

    JsonNode latency = bed.metricLines().get(0).get("PublishLatencyMs");
    assertThat(latency).hasSize(1);
    // Stamped between before and written, published between written + 300 ms and after.
    assertThat(latency.get(0).asLong()).isBetween(300L, after - before);
    assertThat(bed.receive(queue, 1)).hasSize(1);
  }

  @Test
  void withRetention_publishedRowsStayAsSent_untilAnInvocationPurgesThemOnceOlder() {
    String queue = bed.queue("retained");
    UUID id = bed.append(event("invoice.issued", "i-1").build()).get(0);
    PollerHandler handler =
        bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", queue, "OUTBOX_RETENTION_HOURS", "1"));

    assertThat(bed.invoke(handler).published()).isEqualTo(1);
    assertThat(bed.outboxRow(id)).containsEntry("status", "SENT");
    bed.clock.advance(Duration.ofMinutes(59));
    bed.invoke(handler);
    assertThat(bed.outboxRow(id)).as("not an hour old yet").isNotNull();
    bed.clock.advance(Duration.ofMinutes(2));
    PollSummary later = bed.invoke(handler);

    assertThat(later.claimed()).isZero();
    assertThat(bed.outboxRow(id)).isNull();
    assertThat(bed.receive(queue, 1)).hasSize(1);
  }

  @Test
  void emptyOutbox_claimsNothing_andStopsDrained() {
    PollSummary summary =
        bed.invoke(bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", bed.queue("empty"))));

    assertThat(summary.claimed()).isZero();
    assertThat(summary.rounds()).isEqualTo(1);
    assertThat(summary.stoppedBecause()).isEqualTo("drained");
  }
}
