package dev.lambdaoutbox.reprocessor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Triage and careful re-drive on real parts (PostgreSQL, the real poller publishing to the test
 * bed's SQS): 1,000 dead letters of three causes, moved by the poller's store, list as three
 * groups; a group's canary is replayed and awaited while a poller runs, then the rest go back at 50
 * events a second (the SQS send times' rate is printed, and must not beat the cap), a stop holds
 * what has not gone, and a resume sends it, each event once.
 */
class FailureGroupsEndToEndTest {
  static final int RATE = 50;

  private final TestDatabase db = TestEndpoints.postgres();
  private OutboxTables tables;
  private ReprocessorHarness reprocessor;
  private PollerRunner poller;
  private final ExecutorService background = Executors.newSingleThreadExecutor();
  private final AtomicBoolean polling = new AtomicBoolean(true);

  @BeforeEach
  void start() {
    tables = db.createTables("fge");
    reprocessor = new ReprocessorHarness(db, tables, 100);
    poller = new PollerRunner(db, tables);
  }

  @AfterEach
  void stop() {
    polling.set(false);
    background.shutdownNow();
    poller.close();
    reprocessor.close();
    db.dropTables(tables);
  }

  @Test
  void thousandDeadLetters_listAsThreeGroups_andOneGoesBackAfterItsCanary_atThePace_stoppably()
      throws Exception {
    String queue = poller.queue("redrive");
    String missing = queue.replace("dlq-redrive", "dlq-gone");
    deadLetter(
        100,
        queue,
        i ->
            "Queue https://sqs.us-east-1.amazonaws.com/000000000000/orders-"
                + i
                + " rejected the batch (Request ID: "
                + UUID.randomUUID()
                + ")");
    deadLetter(400, missing, i -> "order-" + i + " refused: 'customer-" + (i * 7) + "' unknown");
    deadLetter(500, queue, i -> "payload of " + (1000 + i) + " bytes over the limit of 999");

    // 1. Triage: three groups, their sizes, masked reasons and samples.
    JsonNode list =
        reprocessor.invoke("{\"action\":\"list\",\"groupBy\":\"failure\",\"requestedBy\":\"ops\"}");
    assertThat(list.path("count").asInt()).isEqualTo(3);
    assertThat(list.path("groups"))
        .extracting(g -> g.path("count").asInt())
        .containsExactlyInAnyOrder(100, 400, 500);
    JsonNode group = null;
    for (JsonNode g : list.path("groups")) {
      if (g.path("count").asInt() == 100) {
        group = g;
      }
    }
    assertThat(group.path("reason").asText())
        .isEqualTo(
            "Queue https://sqs.us-east-1.amazonaws.com/<account>/<queue> rejected the batch"
                + " (Request ID: <uuid>)");
    assertThat(group.path("sampleIds")).hasSize(3);
    String fingerprint = group.path("group").asText();

    // 2. A poller runs, as the schedule would; the canary goes back alone and is delivered.
    List<Message> received = new ArrayList<>();
    Future<?> pollLoop = background.submit(this::pollUntilStopped);
    JsonNode canary =
        reprocessor.invoke(
            "{\"action\":\"redrive\",\"group\":\""
                + fingerprint
                + "\",\"ratePerSecond\":"
                + RATE
                + ",\"limit\":60,\"canaryTimeoutSeconds\":20,\"requestedBy\":\"ops\"}");
    assertThat(canary.path("canary").path("state").asText()).isEqualTo("DELIVERED");
    assertThat(canary.path("replayed")).hasSize(60);
    assertThat(canary.path("moreInGroup").asBoolean()).isTrue();
    assertThat(canary.path("progress").path("remaining").asInt()).isEqualTo(39);

    // 3. The first 60 go at the pace; a stop holds what has not gone yet.
    receiveUntil(queue, received, 21);
    JsonNode stop =
        reprocessor.invoke(
            "{\"action\":\"stopRedrive\",\"group\":\""
                + fingerprint
                + "\",\"reason\":\"consumer lagging\",\"requestedBy\":\"ops\"}");
    int held = stop.path("held").size();
    assertThat(held).isPositive();
    Thread.sleep(1_000);
    drain(queue, received);
    int beforeResume = received.size();
    assertThat(beforeResume).isEqualTo(1 + 60 - held); // the canary, and what went before the stop
    assertThat(stop.path("progress").path("held").asInt()).isEqualTo(held);

    // 4. resume: the held rows, then the 39 left, at the same pace.
    JsonNode resume =
        reprocessor.invoke(
            "{\"action\":\"resumeRedrive\",\"group\":\""
                + fingerprint
                + "\",\"ratePerSecond\":"
                + RATE
                + ",\"requestedBy\":\"ops\"}");
    assertThat(resume.path("resumed").asInt()).isEqualTo(held);
    assertThat(resume.path("replayed")).hasSize(39);
    assertThat(resume.path("moreInGroup").asBoolean()).isFalse();
    receiveUntil(queue, received, 100);
    Thread.sleep(500);
    drain(queue, received);
    polling.set(false);
    pollLoop.get();

    // Every event of the group once; the other groups untouched.
    Set<String> ids = new HashSet<>();
    received.forEach(m -> ids.add(PollerRunner.attribute(m, "eventId")));
    assertThat(received).hasSize(100);
    assertThat(ids).hasSize(100);
    assertThat(reprocessor.rows.deadIds()).hasSize(900);
    assertThat(reprocessor.rows.outboxIds()).isEmpty();
    assertThat(reprocessor.rows.auditCount(AuditEntry.REDRIVE_CANARY)).isEqualTo(1);
    assertThat(reprocessor.rows.auditCount(AuditEntry.REDRIVE)).isEqualTo(99);
    assertThat(reprocessor.rows.auditCount(AuditEntry.REDRIVE_HOLD)).isEqualTo(held);
    assertThat(reprocessor.rows.auditCount(AuditEntry.REDRIVE_RESUME)).isEqualTo(held);

    // The pace, measured by SQS's send times: never faster than the cap, before and after the stop.
    double before = rate(received.subList(1, beforeResume));
    double after = rate(received.subList(beforeResume, received.size()));
    System.out.printf(
        "re-drive at a cap of %d/s: %.1f events/s before the stop (%d events), %.1f after the"
            + " resume (%d events)%n",
        RATE, before, beforeResume - 1, after, received.size() - beforeResume);
    assertThat(before).isLessThanOrEqualTo(RATE * 1.1);
    assertThat(after).isLessThanOrEqualTo(RATE * 1.1);

    // The metrics of the last step: nothing left, nothing scheduled or held.
    JsonNode metrics = reprocessor.metrics().get(reprocessor.metrics().size() - 1);
    assertThat(metrics.path("RedriveRemaining").asInt()).isZero();
    assertThat(metrics.path("RedriveHeld").asInt()).isZero();
    assertThat(metrics.path("Replayed").asInt()).isEqualTo(39);
  }

  /** Events a second between the first and the last send time of {@code messages}. */
  private static double rate(List<Message> messages) {
    List<Long> sent =
        messages.stream()
            .map(m -> Long.parseLong(m.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP)))
            .sorted()
            .toList();
    long span = sent.get(sent.size() - 1) - sent.get(0);
    return (sent.size() - 1) * 1000.0 / Math.max(1, span);
  }

  private void pollUntilStopped() {
    while (polling.get()) {
      poller.poll();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void receiveUntil(String queue, List<Message> received, int count) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (received.size() < count && System.nanoTime() < deadline) {
      received.addAll(receiveOnce(queue));
    }
  }

  private void drain(String queue, List<Message> received) {
    List<Message> more;
    do {
      more = receiveOnce(queue);
      received.addAll(more);
    } while (!more.isEmpty());
  }

  private List<Message> receiveOnce(String queue) {
    List<Message> messages =
        poller
            .sqs
            .receiveMessage(
                r ->
                    r.queueUrl(queue)
                        .maxNumberOfMessages(10)
                        .waitTimeSeconds(1)
                        .messageAttributeNames("All")
                        .messageSystemAttributeNames(MessageSystemAttributeName.SENT_TIMESTAMP))
            .messages();
    for (Message m : messages) {
      poller.sqs.deleteMessage(r -> r.queueUrl(queue).receiptHandle(m.receiptHandle()));
    }
    return messages;
  }

  /**
   * {@code n} events to {@code destination}, claimed and dead-lettered by the poller's store with
   * the reason {@code reason(i)}, as the poller moves them.
   */
  private void deadLetter(int n, String destination, IntFunction<String> reason) throws Exception {
    Instant at = Instant.now().minusSeconds(60);
    List<UUID> ids = new ArrayList<>();
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + tables.messages()
                    + " (id, aggregate_type, aggregate_id, event_type, payload, destination,"
                    + " occurred_at, created_at, next_attempt_at)"
                    + " VALUES (?, 'Order', ?, 'OrderPlaced', '{}', ?, ?, ?, ?)")) {
      for (int i = 0; i < n; i++) {
        UUID id = UuidV7.generate();
        ids.add(id);
        JdbcValues.setUuid(ps, 1, id, db.dialect());
        ps.setString(2, "order-" + i);
        ps.setString(3, destination);
        JdbcValues.setInstant(ps, 4, at, db.dialect());
        JdbcValues.setInstant(ps, 5, at, db.dialect());
        JdbcValues.setInstant(ps, 6, at, db.dialect());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    try (var connections = Stores.connections(db, tables)) {
      OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();
      Map<UUID, Integer> index = new java.util.HashMap<>();
      for (int i = 0; i < n; i++) {
        index.put(ids.get(i), i);
      }
      int moved = 0;
      while (moved < n) {
        List<OutboxMessage> claimed =
            store.claim("seed", 100, Instant.now(), Duration.ofMinutes(1)).messages();
        List<DeliveryOutcome> outcomes = new ArrayList<>();
        for (OutboxMessage m : claimed) {
          outcomes.add(
              new DeliveryOutcome.DeadLetter(
                  m.id(), "PublishRefused", reason.apply(index.get(m.id()))));
        }
        store.complete("seed", outcomes, Instant.now());
        moved += claimed.size();
      }
    }
  }
}
