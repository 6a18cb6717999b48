package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.PollerRunner.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The operator's night, on real parts: the poller dead-letters events that nothing routes anywhere
 * (no destination of their own, no route, no default destination), the operator lists them,
 * dry-runs a replay, replays one to the destination it should have had and discards the other; the
 * poller then delivers the replayed event to SQS with its original id. (A destination that exists
 * but refuses every message is not dead-lettered: the poller parks it until it is fixed.)
 */
class DeadLetterReplayEndToEndTest {
  private final TestDatabase db = TestEndpoints.postgres();
  private OutboxTables tables;
  private ReprocessorHarness reprocessor;
  private PollerRunner poller;

  @BeforeEach
  void start() {
    tables = db.createTables("dle");
    reprocessor = new ReprocessorHarness(db, tables, 100);
    poller = new PollerRunner(db, tables);
  }

  @AfterEach
  void stop() {
    poller.close();
    reprocessor.close();
    db.dropTables(tables);
  }

  @Test
  void deadLetteredEvent_isListed_dryRun_replayedToACorrectedDestination_andDelivered()
      throws Exception {
    String goodQueue = poller.queue("orders");
    OutboxEvent toReplay = event("order-1", "{\"orderId\":\"order-1\",\"total\":\"42.50\"}");
    OutboxEvent toDiscard = event("order-2", "{\"orderId\":\"order-2\",\"test\":true}");
    append(toReplay, toDiscard);

    // 1. The poller dead-letters both: nothing says where they go, a permanent error.
    PollSummary first = poller.poll();
    assertThat(first.deadLettered()).isEqualTo(2);
    assertThat(reprocessor.rows.outboxIds()).isEmpty();

    // 2. list shows them, with the error the broker gave.
    JsonNode list = reprocessor.invoke("{\"action\":\"list\",\"requestedBy\":\"alice\"}");
    assertThat(list.path("deadLetters"))
        .extracting(r -> r.path("id").asText())
        .containsExactlyInAnyOrder(toReplay.id().toString(), toDiscard.id().toString());
    JsonNode row = list.path("deadLetters").get(0);
    assertThat(row.path("errorCode").asText()).isEqualTo("NO_DESTINATION");
    assertThat(row.path("attempts").asInt()).isEqualTo(1);
    assertThat(row.path("destination").isNull()).isTrue();
    assertThat(list.path("summary").path("total").asInt()).isEqualTo(2);
    String errorCode = row.path("errorCode").asText();

    // 3. A dry run by filter changes nothing.
    String before = reprocessor.rows.snapshot();
    JsonNode dryRun =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"filter\":{\"errorCode\":\""
                + errorCode
                + "\",\"aggregateId\":\"order-1\"},\"destination\":\""
                + goodQueue
                + "\",\"requestedBy\":\"alice\"}");
    assertThat(dryRun.path("dryRun").asBoolean()).isTrue();
    assertThat(dryRun.path("wouldReplay"))
        .extracting(JsonNode::asText)
        .containsExactly(toReplay.id().toString());
    assertThat(reprocessor.rows.snapshot()).isEqualTo(before);

    // 4. The replay with the corrected destination puts it back into the outbox.
    JsonNode replay =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"ids\":[\""
                + toReplay.id()
                + "\"],\"destination\":\""
                + goodQueue
                + "\",\"requestedBy\":\"alice\",\"reason\":\"the orders queue was never routed\"}");
    assertThat(replay.path("replayed"))
        .extracting(JsonNode::asText)
        .containsExactly(toReplay.id().toString());

    // 5. The poller delivers it to SQS with its original event id.
    PollSummary second = poller.poll();
    assertThat(second.published()).isEqualTo(1);
    List<Message> received = poller.receive(goodQueue, 1);
    assertThat(received).hasSize(1);
    assertThat(attribute(received.get(0), "eventId")).isEqualTo(toReplay.id().toString());
    assertThat(received.get(0).body()).isEqualTo(toReplay.payload());

    // The other one is discarded.
    reprocessor.invoke(
        "{\"action\":\"discard\",\"ids\":[\""
            + toDiscard.id()
            + "\"],\"reason\":\"test order from the load test\",\"requestedBy\":\"alice\"}");

    // 6. The audit shows both actions; nothing is left behind.
    List<AuditEntry> replayed = reprocessor.store.auditTrail(toReplay.id());
    assertThat(replayed)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.action()).isEqualTo("REPLAY");
              assertThat(e.requestedBy()).isEqualTo("alice");
              assertThat(e.reason()).isEqualTo("the orders queue was never routed");
              assertThat(e.destinationOverride()).isEqualTo(goodQueue);
              assertThat(e.snapshot().destination()).isNull();
            });
    List<AuditEntry> discarded = reprocessor.store.auditTrail(toDiscard.id());
    assertThat(discarded)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.action()).isEqualTo("DISCARD");
              assertThat(e.snapshot().payload()).isEqualTo(toDiscard.payload());
            });
    assertThat(reprocessor.rows.deadIds()).isEmpty();
    assertThat(reprocessor.rows.outboxIds()).isEmpty();
  }

  private static OutboxEvent event(String orderId, String payload) {
    return OutboxEvent.builder()
        .aggregateType("Order")
        .aggregateId(orderId)
        .eventType("OrderPlaced")
        .payload(payload)
        .occurredAt(Instant.now().truncatedTo(ChronoUnit.MILLIS))
        .build();
  }

  private void append(OutboxEvent... events) throws Exception {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      writer.appendAll(c, List.of(events));
      c.commit();
    }
  }
}
