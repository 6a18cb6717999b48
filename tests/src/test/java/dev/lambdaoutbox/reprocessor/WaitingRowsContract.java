package dev.lambdaoutbox.reprocessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.demo.Alarms;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.Backend;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Rows waiting for a destination that does not exist are never invisible. The real poller routes
 * events to a topic nobody created (on the real endpoint): it parks the topic as misconfigured and
 * defers the rows. Then the poller's metric counts them (and the stack's alarm on it fires, and
 * clears once none waits), the reprocessor's {@code list} shows them by destination (reason, how
 * many, the oldest), and an operator moves them, a bounded batch at a time, audited: to another
 * destination, checked as a replay's is ({@code retarget}), or to the dead letters ({@code
 * deadLetter}). Run over each way the functions reach the tables by a small subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WaitingRowsContract {
  private static final Alarms.Rule ALARM = Alarms.WAITING_ON_MISCONFIGURED;

  private final List<AutoCloseable> resources = new ArrayList<>();
  private TestDatabase db;
  private OutboxTables tables;
  private SnsClient sns;
  private SqsClient sqs;
  private String prefix;
  private String missingTopic;
  private String newQueue;
  private String queueNotAllowed;
  private ReprocessorHarness reprocessor;
  private PollerRunner poller;
  private DeadLetterTables rows;

  /** How the functions reach the tables. */
  abstract Backend backend();

  @BeforeAll
  void createTablesAndQueues() {
    db = backend().database();
    tables = db.createTables("wait");
    AwsEndpoint aws = TestEndpoints.aws();
    sns = aws.sns();
    sqs = aws.sqs();
    prefix = "wait-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    newQueue = sqs.createQueue(r -> r.queueName(prefix + "-ok-orders")).queueUrl();
    queueNotAllowed = sqs.createQueue(r -> r.queueName(prefix + "-elsewhere")).queueUrl();
    String account = newQueue.split("/")[3];
    missingTopic = "arn:aws:sns:" + aws.region() + ":" + account + ":" + prefix + "-ok-missing";
  }

  @AfterAll
  void dropTablesAndQueues() {
    db.dropTables(tables);
    sqs.deleteQueue(r -> r.queueUrl(newQueue));
    sqs.deleteQueue(r -> r.queueUrl(queueNotAllowed));
    sns.close();
    sqs.close();
  }

  @BeforeEach
  void emptyTables() {
    reprocessor = operator(Ordering.NONE);
    rows = reprocessor.rows;
    rows.empty();
    poller = poller(Ordering.NONE);
  }

  /** The reprocessor, moving two rows per transaction, allowed this run's "-ok-" destinations. */
  private ReprocessorHarness operator(Ordering ordering) {
    return new ReprocessorHarness(
        db,
        tables,
        2,
        backend().executor(tables, resources),
        ReprocessorHarness.allowingNamesStartingWith(newQueue.split("/")[3], prefix + "-ok-"),
        ordering);
  }

  /**
   * The poller, routing OrderPlaced to the missing topic, which it probes again only in a minute:
   * the rows keep waiting meanwhile.
   */
  private PollerRunner poller(Ordering ordering) {
    return new PollerRunner(
        db,
        tables,
        backend().executor(tables, resources),
        Map.of(
            "OUTBOX_ROUTES",
            "{\"OrderPlaced\":\"" + missingTopic + "\"}",
            "OUTBOX_PROBE_INTERVAL_MIN_MS",
            "60000",
            "OUTBOX_ORDERING",
            ordering.name().toLowerCase(Locale.ROOT)));
  }

  @AfterEach
  void close() {
    poller.close();
    reprocessor.close();
    Backend.close(resources);
  }

  @Test
  final void rowsWaitingForAMissingTopic_areCounted_alarmed_andListedByDestination() {
    List<UUID> waiting = waitingAfterAPoll(5);

    JsonNode metrics = lastMetrics();
    assertThat(metrics.path("WaitingOnMisconfigured").asInt()).isEqualTo(5);
    assertThat(metrics.path("DestinationsMisconfigured").asInt()).isEqualTo(1);
    assertThat(ALARM.breaches(metrics.path(ALARM.metric()).asDouble()))
        .as("%s fires while rows wait", ALARM.name())
        .isTrue();
    assertThat(rows.waitingFor().values()).containsOnly(DestinationHealth.key(missingTopic));

    JsonNode list = reprocessor.invoke("{\"action\":\"list\"}");
    assertThat(list.path("count").asInt()).as("nothing died").isZero();
    JsonNode w = list.path("waiting");
    assertThat(w.path("rows").asLong()).isEqualTo(5);
    JsonNode d = w.path("destinations").get(0);
    assertThat(w.path("destinations")).hasSize(1);
    assertThat(d.path("destination").asText()).isEqualTo(missingTopic);
    assertThat(d.path("state").asText()).isEqualTo("MISCONFIGURED");
    assertThat(d.path("errorCode").asText()).isEqualTo("NotFound");
    assertThat(d.path("reason").asText()).isNotBlank();
    assertThat(d.path("rows").asLong()).isEqualTo(5);
    assertThat(d.path("rowsCapped").asBoolean()).isFalse();
    Instant oldest =
        rows.outboxRows().stream().map(OutboxRow::createdAt).min(Instant::compareTo).orElseThrow();
    assertThat(Instant.parse(d.path("oldestCreatedAt").asText())).isEqualTo(oldest);
    assertThat(d.path("oldestAgeSeconds").asLong()).isNotNegative();

    assertThat(waitingRows("{\"errorCode\":\"NotFound\",\"eventType\":\"OrderPlaced\"}"))
        .isEqualTo(5);
    assertThat(waitingRows("{\"aggregateId\":\"" + aggregateOf(waiting.get(0)) + "\"}"))
        .isEqualTo(1);
    assertThat(waitingRows("{\"errorCode\":\"Throttling\"}")).isZero();
    assertThat(waitingRows("{\"eventType\":\"OrderShipped\"}")).isZero();
    assertThat(waitingRows("{\"deadAtFrom\":\"2000-01-01T00:00:00Z\"}"))
        .as("a row that waits has not died")
        .isZero();
  }

  /**
   * Rows written (over Jdbi) to wait for their time are neither late nor out of sight: the poller
   * leaves them, its oldest-age gauge does not count them, and {@code list} says how many wait and
   * which come due first, and when (the database's time of the INSERT plus the delay).
   */
  @Test
  final void rowsWaitingForTheirTime_areListedWithTheirTimes_andNotCountedLate() {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    OutboxEvent soon =
        placed("order-" + UUID.randomUUID(), 0).toBuilder().delay(Duration.ofHours(1)).build();
    OutboxEvent later =
        placed("order-" + UUID.randomUUID(), 1).toBuilder().delay(Duration.ofHours(2)).build();
    db.jdbi().useTransaction(h -> writer.appendAll(h, List.of(later, soon)));

    assertThat(poller.poll().claimed()).isZero();
    assertThat(lastMetrics().path("OldestUnpublishedAgeSeconds").asDouble()).isZero();

    JsonNode w = reprocessor.invoke("{\"action\":\"list\"}").path("waitingForTime");
    assertThat(w.path("rows").asLong()).isEqualTo(2);
    assertThat(w.path("rowsCapped").asBoolean()).isFalse();
    assertThat(w.path("next").findValuesAsText("id"))
        .containsExactly(soon.id().toString(), later.id().toString());
    Instant created =
        rows.outboxRows().stream()
            .filter(r -> r.id().equals(soon.id()))
            .findFirst()
            .orElseThrow()
            .createdAt();
    assertThat(Instant.parse(w.path("next").get(0).path("notBefore").asText()))
        .isEqualTo(created.plus(Duration.ofHours(1)));
  }

  @Test
  final void retarget_isCheckedFirst_movesABoundedBatch_audited_andTheAlarmClearsOnceNoneWaits() {
    List<UUID> waiting = waitingAfterAPoll(5);
    String before = rows.snapshot();

    JsonNode dryRun = reprocessor.invoke(retarget(newQueue, "\"limit\":3"));
    assertThat(dryRun.path("dryRun").asBoolean()).as("a dry run unless told").isTrue();
    assertThat(dryRun.path("wouldRetarget")).hasSize(3);
    assertThat(dryRun.path("moreWaiting").asBoolean()).isTrue();
    assertThat(rows.snapshot()).isEqualTo(before);

    String missingQueue = newQueue.replace("-ok-orders", "-ok-gone");
    for (String refused : List.of(queueNotAllowed, missingQueue)) {
      assertThatThrownBy(
              () -> reprocessor.invoke(retarget(refused, "\"limit\":3,\"dryRun\":false")))
          .isInstanceOfSatisfying(
              InvalidRequestException.class,
              e -> {
                assertThat(e.field()).isEqualTo("destination");
                assertThat(e.problem()).contains(refused);
              });
      assertThat(rows.snapshot()).as(refused).isEqualTo(before);
    }

    JsonNode first =
        reprocessor.invoke(
            retarget(
                newQueue,
                "\"limit\":3,\"dryRun\":false,\"requestedBy\":\"alice\","
                    + "\"reason\":\"the orders topic was renamed\""));
    List<UUID> moved = ids(first.path("retargeted"));
    assertThat(moved).hasSize(3).isSubsetOf(waiting);
    assertThat(first.path("moreWaiting").asBoolean()).isTrue();
    assertThat(first.path("batches").asInt()).as("batches of 2").isEqualTo(2);
    assertThat(rows.outboxRows())
        .filteredOn(r -> moved.contains(r.id()))
        .extracting(OutboxRow::destination)
        .containsOnly(newQueue);
    assertThat(rows.waitingFor())
        .allSatisfy(
            (id, key) ->
                assertThat(key)
                    .isEqualTo(moved.contains(id) ? null : DestinationHealth.key(missingTopic)));
    AuditEntry audited = reprocessor.store.auditTrail(moved.get(0)).get(0);
    assertThat(audited.action()).isEqualTo(AuditEntry.RETARGET);
    assertThat(audited.requestedBy()).isEqualTo("alice");
    assertThat(audited.reason()).isEqualTo("the orders topic was renamed");
    assertThat(audited.destinationOverride()).isEqualTo(newQueue);
    JsonNode entry =
        reprocessor
            .invoke("{\"action\":\"audit\",\"filter\":{\"action\":\"RETARGET\"}}")
            .path("entries")
            .get(0);
    assertThat(entry.path("waitingFor").asText()).isEqualTo(missingTopic);
    assertThat(entry.path("destinationOverride").asText()).isEqualTo(newQueue);

    PollSummary run = poller.poll();
    assertThat(run.published()).isEqualTo(3);
    assertThat(poller.receive(newQueue, 3))
        .extracting(m -> UUID.fromString(PollerRunner.attribute(m, "eventId")))
        .containsExactlyInAnyOrderElementsOf(moved);
    assertThat(lastMetrics().path("WaitingOnMisconfigured").asInt()).isEqualTo(2);

    JsonNode rest = reprocessor.invoke(retarget(newQueue, "\"dryRun\":false"));
    assertThat(ids(rest.path("retargeted"))).hasSize(2);
    assertThat(rest.path("moreWaiting").asBoolean()).isFalse();
    assertThat(poller.poll().published()).isEqualTo(2);
    List<Message> more = poller.receive(newQueue, 2);
    assertThat(more).hasSize(2);
    double after = lastMetrics().path(ALARM.metric()).asDouble();
    assertThat(after).isZero();
    assertThat(ALARM.breaches(after)).as("%s clears once none waits", ALARM.name()).isFalse();
    assertThat(rows.outboxIds()).isEmpty();
    assertThat(rows.deadIds()).isEmpty();
    assertThat(reprocessor.invoke("{\"action\":\"list\"}").path("waiting").path("rows").asLong())
        .isZero();
  }

  @Test
  final void deadLetter_movesABoundedBatchOfWaitingRows_withTheirError_audited() {
    List<UUID> waiting = waitingAfterAPoll(4);
    String before = rows.snapshot();

    JsonNode dryRun = reprocessor.invoke(deadLetter(""));
    assertThat(dryRun.path("wouldDeadLetter")).hasSize(4);
    assertThat(rows.snapshot()).isEqualTo(before);

    JsonNode report =
        reprocessor.invoke(
            deadLetter(",\"limit\":3,\"dryRun\":false,\"reason\":\"the topic is retired\""));
    List<UUID> dead = ids(report.path("deadLettered"));
    assertThat(dead).hasSize(3).isSubsetOf(waiting);
    assertThat(report.path("moreWaiting").asBoolean()).isTrue();
    assertThat(rows.deadIds()).containsExactlyInAnyOrderElementsOf(dead);
    assertThat(rows.outboxIds()).hasSize(1).doesNotContainAnyElementsOf(dead);
    AuditEntry audited = reprocessor.store.auditTrail(dead.get(0)).get(0);
    assertThat(audited.action()).isEqualTo(AuditEntry.DEAD_LETTER);
    assertThat(audited.reason()).isEqualTo("the topic is retired");
    assertThat(audited.snapshot().errorCode()).isEqualTo("NotFound");
    assertThat(audited.snapshot().errorReason()).contains("while waiting for " + missingTopic);

    JsonNode list = reprocessor.invoke("{\"action\":\"list\"}");
    assertThat(list.path("summary").path("byErrorCodeAndEventType").get(0).path("count").asInt())
        .isEqualTo(3);
    assertThat(list.path("waiting").path("rows").asLong()).isEqualTo(1);
    poller.poll();
    assertThat(lastMetrics().path("WaitingOnMisconfigured").asInt()).isEqualTo(1);

    // A dead letter goes on like any other: replayed to a destination that exists.
    reprocessor.invoke(
        "{\"action\":\"replay\",\"ids\":[\""
            + dead.get(0)
            + "\"],\"destination\":\""
            + newQueue
            + "\"}");
    assertThat(poller.poll().published()).isEqualTo(1);
    assertThat(poller.receive(newQueue, 1))
        .extracting(m -> PollerRunner.attribute(m, "eventId"))
        .containsExactly(dead.get(0).toString());
  }

  @Test
  final void deadLetter_withOrdering_parksTheAggregate_asADeadLetteredHeadDoes() {
    ReprocessorHarness operator = operator(Ordering.AGGREGATE);
    resources.add(operator);
    try (PollerRunner ordered = poller(Ordering.AGGREGATE)) {
      OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
      OutboxEvent head = placed("order-ordered", 1);
      OutboxEvent behind = placed("order-ordered", 2);
      db.jdbi().useTransaction(h -> writer.appendAll(h, List.of(head, behind)));
      assertThat(ordered.poll().deferred()).as("the head alone is claimed, and waits").isEqualTo(1);

      JsonNode report =
          operator.invoke(
              "{\"action\":\"deadLetter\",\"waitingFor\":\""
                  + missingTopic
                  + "\",\"dryRun\":false}");
      assertThat(ids(report.path("deadLettered"))).containsExactly(head.id());
      assertThat(report.path("counts").path("parkedEvents").asLong()).isEqualTo(1);
      JsonNode parked = operator.invoke("{\"action\":\"list\"}").path("parkedKeys");
      assertThat(parked.path("total").asLong()).isEqualTo(1);
      assertThat(parked.path("keys").get(0).path("deadLetterId").asText())
          .isEqualTo(head.id().toString());
      assertThat(ordered.poll().claimed()).as("the event behind it waits for it").isZero();

      // Replayed where it can go, the head leads again, and releases its aggregate.
      operator.invoke(
          "{\"action\":\"replay\",\"ids\":[\""
              + head.id()
              + "\"],\"destination\":\""
              + newQueue
              + "\"}");
      assertThat(ordered.poll().published()).isEqualTo(1);
      assertThat(ordered.receive(newQueue, 1))
          .extracting(m -> PollerRunner.attribute(m, "eventId"))
          .containsExactly(head.id().toString());
    }
  }

  // ---- helpers

  private static OutboxEvent placed(String aggregateId, int n) {
    return OutboxEvent.builder()
        .aggregateType("Order")
        .aggregateId(aggregateId)
        .eventType("OrderPlaced")
        .payload("{\"n\":" + n + "}")
        .build();
  }

  /** Writes {@code n} events routed to the missing topic; one poll leaves them all waiting. */
  private List<UUID> waitingAfterAPoll(int n) {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(placed("order-" + UUID.randomUUID(), i));
    }
    db.jdbi().useTransaction(h -> writer.appendAll(h, events));
    PollSummary summary = poller.poll();
    assertThat(summary.deferred()).as("the rows wait, no retry spent").isEqualTo(n);
    assertThat(summary.deadLettered() + summary.retried()).isZero();
    return events.stream().map(OutboxEvent::id).toList();
  }

  private JsonNode lastMetrics() {
    List<JsonNode> lines = poller.metricLines();
    return lines.get(lines.size() - 1);
  }

  private long waitingRows(String filter) {
    return reprocessor
        .invoke("{\"action\":\"list\",\"filter\":" + filter + "}")
        .path("waiting")
        .path("rows")
        .asLong();
  }

  private String aggregateOf(UUID id) {
    return rows.outboxRows().stream()
        .filter(r -> r.id().equals(id))
        .findFirst()
        .orElseThrow()
        .aggregateId();
  }

  private String retarget(String destination, String more) {
    return "{\"action\":\"retarget\",\"waitingFor\":\""
        + missingTopic
        + "\",\"destination\":\""
        + destination
        + "\","
        + more
        + "}";
  }

  private String deadLetter(String more) {
    return "{\"action\":\"deadLetter\",\"waitingFor\":\"" + missingTopic + "\"" + more + "}";
  }

  private static List<UUID> ids(JsonNode array) {
    List<UUID> ids = new ArrayList<>();
    array.forEach(n -> ids.add(UUID.fromString(n.asText())));
    return ids;
  }
}
