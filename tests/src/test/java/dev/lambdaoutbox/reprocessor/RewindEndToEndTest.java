package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.PollerRunner.attribute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Back-filling a new subscriber on real parts: an hour of delivered events of one type (written and
 * marked sent two hours ago, among events of another type), kept by the retention period, rewound
 * through the reprocessor handler to a new SQS queue and published by the real poller (ordering by
 * aggregate) to the test bed's SQS. A dry run changes nothing; a queue outside the allow-list is
 * refused naming the field; the real rewind runs in steps from its cursor, and the queue receives
 * every event once, under its original id, each aggregate's in their original order, no faster than
 * the rate asked (measured from SQS's own sent times, and printed).
 */
class RewindEndToEndTest {
  private static final int EVENTS = 120;
  private static final int AGGREGATES = 12;
  private static final int RATE = 20;

  private final TestDatabase db = TestEndpoints.postgres();
  private final String prefix =
      "rw" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xFFFFF));
  private OutboxTables tables;
  private ReprocessorHarness reprocessor;
  private PollerRunner poller;
  private final List<String> queues = new ArrayList<>();

  @BeforeEach
  void start() {
    tables = db.createTables("rwe");
    reprocessor =
        new ReprocessorHarness(
            db,
            tables,
            100,
            null,
            ReprocessorHarness.allowingNamesStartingWith("000000000000", prefix + "-ok-"),
            Ordering.AGGREGATE);
    poller = new PollerRunner(db, tables, null, Map.of("OUTBOX_ORDERING", "aggregate"));
  }

  @AfterEach
  void stop() {
    queues.forEach(q -> poller.sqs.deleteQueue(r -> r.queueUrl(q)));
    poller.close();
    reprocessor.close();
    db.dropTables(tables);
  }

  @Test
  void anHourOfOneEventType_rewoundToANewQueue_arrivesInAggregateOrder_underItsIds_atTheRate()
      throws Exception {
    Instant hourStart = Instant.now().minus(Duration.ofHours(2)).truncatedTo(ChronoUnit.SECONDS);
    Map<String, List<String>> expected = history(hourStart);
    String backfill = queue(prefix + "-ok-billing");
    String notAllowed = queue(prefix + "-no-billing");
    String request =
        "{\"action\":\"rewind\",\"requestedBy\":\"alice\",\"reason\":\"back-fill billing\","
            + "\"filter\":{\"sentFrom\":\""
            + hourStart
            + "\",\"sentTo\":\""
            + hourStart.plus(Duration.ofHours(1))
            + "\",\"eventType\":\"OrderPlaced\"},\"destination\":\"%s\",\"ratePerSecond\":"
            + RATE
            + ",\"limit\":50%s}";

    // A queue outside the allow-list is refused, naming the field; nothing changes.
    String before = reprocessor.rows.snapshot();
    assertThatThrownBy(() -> reprocessor.invoke(request.formatted(notAllowed, ",\"dryRun\":false")))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> {
              assertThat(e.field()).isEqualTo("destination");
              assertThat(e.problem()).contains("OUTBOX_REPLAY_DESTINATIONS");
            });

    // The dry run (the default) counts and samples, and changes nothing.
    JsonNode dryRun = reprocessor.invoke(request.formatted(backfill, ""));
    assertThat(dryRun.path("dryRun").asBoolean()).isTrue();
    assertThat(dryRun.path("matching").asInt()).isEqualTo(EVENTS);
    assertThat(dryRun.path("matchingComplete").asBoolean()).isTrue();
    assertThat(dryRun.path("estimatedSeconds").asInt()).isEqualTo(EVENTS / RATE);
    assertThat(dryRun.path("sample")).hasSize(10);
    assertThat(reprocessor.rows.snapshot()).isEqualTo(before);

    // The rewind, a step at a time from its cursor, each step sent shortly before the schedule of
    // the one before runs out (as scripts/outbox-ops does), while the poller publishes what is due.
    List<JsonNode> steps = new ArrayList<>();
    List<Message> received = new ArrayList<>();
    String cursor = null;
    Instant nextStepAt = Instant.EPOCH;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (received.size() < EVENTS && System.nanoTime() < deadline) {
      if ((steps.isEmpty() || cursor != null) && !Instant.now().isBefore(nextStepAt)) {
        JsonNode step =
            reprocessor.invoke(
                request.formatted(
                    backfill,
                    ",\"dryRun\":false"
                        + (cursor == null ? "" : ",\"cursor\":\"" + cursor + "\"")));
        steps.add(step);
        cursor = step.path("nextCursor").isNull() ? null : step.path("nextCursor").asText();
        nextStepAt = Instant.parse(step.path("lastDueAt").asText()).minusSeconds(1);
      }
      poller.poll();
      received.addAll(receive(backfill));
    }
    received.addAll(receive(backfill)); // a duplicate would show up too
    assertThat(steps).extracting(s -> s.path("scheduled").asInt()).containsExactly(50, 50, 20);
    assertThat(steps.get(2).path("done").asBoolean()).isTrue();

    assertThat(received).hasSize(EVENTS);
    received.sort(Comparator.comparingLong(RewindEndToEndTest::sentTimestamp));
    Map<String, List<String>> arrived = new LinkedHashMap<>();
    for (Message m : received) {
      arrived
          .computeIfAbsent(attribute(m, "aggregateId"), k -> new ArrayList<>())
          .add(attribute(m, "eventId"));
      assertThat(attribute(m, "eventType")).isEqualTo("OrderPlaced");
    }
    assertThat(arrived).isEqualTo(expected);

    // No copy goes before it is due: the k-th sent is sent no earlier than k intervals after the
    // first copy was due (SQS's sent times are to the millisecond, the database's clock is this
    // host's).
    long firstDue = Instant.parse(steps.get(0).path("firstDueAt").asText()).toEpochMilli();
    for (int k = 0; k < received.size(); k++) {
      assertThat(sentTimestamp(received.get(k)))
          .as("message %d", k)
          .isGreaterThanOrEqualTo(firstDue + k * 1000L / RATE - 2);
    }
    long spanMillis =
        sentTimestamp(received.get(received.size() - 1)) - sentTimestamp(received.get(0));
    long fromDue = sentTimestamp(received.get(received.size() - 1)) - firstDue;
    System.out.printf(
        "rewind of %d events at a cap of %d/s in %d steps: first to last sent in %d ms (%.1f"
            + " events/s); first copy due to last sent in %d ms (%.1f events/s)%n",
        EVENTS,
        RATE,
        steps.size(),
        spanMillis,
        (EVENTS - 1) * 1000.0 / Math.max(1, spanMillis),
        fromDue,
        EVENTS * 1000.0 / Math.max(1, fromDue));

    // Audited: one REWIND entry per step; progress in the reprocessor's metrics.
    JsonNode audit =
        reprocessor.invoke("{\"action\":\"audit\",\"filter\":{\"action\":\"rewind\"}}");
    assertThat(audit.path("entries")).hasSize(3);
    assertThat(audit.path("entries").get(0).path("destinationOverride").asText())
        .isEqualTo(backfill);
    assertThat(reprocessor.metrics())
        .extracting(m -> m.path("Rewound").asInt())
        .containsSubsequence(50, 50, 20);
  }

  /**
   * Two hours ago, over one hour: {@link #EVENTS} OrderPlaced events over {@link #AGGREGATES}
   * orders and as many OrderShipped, each delivered (SENT) a second after it was written; the
   * OrderPlaced event ids of each order in their order.
   */
  private Map<String, List<String>> history(Instant hourStart) throws Exception {
    Map<String, List<String>> placed = new LinkedHashMap<>();
    Duration step = Duration.ofHours(1).dividedBy(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      Instant at = hourStart.plus(step.multipliedBy(i));
      String order = "order-" + (i * 7 % AGGREGATES);
      OutboxEvent event = event(order, "OrderPlaced", i);
      append(at, event, event(order, "OrderShipped", i));
      placed.computeIfAbsent(order, k -> new ArrayList<>()).add(event.id().toString());
    }
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(
          "UPDATE "
              + tables.messages()
              + " SET status = 'SENT', sent_at = created_at + interval '1 second'");
    }
    return placed;
  }

  private static OutboxEvent event(String order, String type, int n) {
    return OutboxEvent.builder()
        .aggregateType("Order")
        .aggregateId(order)
        .eventType(type)
        .payload("{\"orderId\":\"" + order + "\",\"n\":" + n + "}")
        .build();
  }

  private void append(Instant at, OutboxEvent... events) throws Exception {
    OutboxWriter writer =
        OutboxWriter.builder().tables(tables).clock(Clock.fixed(at, ZoneOffset.UTC)).build();
    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      writer.appendAll(c, List.of(events));
      c.commit();
    }
  }

  private String queue(String name) {
    String url = poller.sqs.createQueue(r -> r.queueName(name)).queueUrl();
    queues.add(url);
    return url;
  }

  private List<Message> receive(String queueUrl) {
    List<Message> messages =
        poller
            .sqs
            .receiveMessage(
                r ->
                    r.queueUrl(queueUrl)
                        .maxNumberOfMessages(10)
                        .waitTimeSeconds(0)
                        .messageAttributeNames("All")
                        .messageSystemAttributeNames(MessageSystemAttributeName.SENT_TIMESTAMP))
            .messages();
    for (Message m : messages) {
      poller.sqs.deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(m.receiptHandle()));
    }
    return messages;
  }

  private static long sentTimestamp(Message m) {
    return Long.parseLong(m.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP));
  }
}
