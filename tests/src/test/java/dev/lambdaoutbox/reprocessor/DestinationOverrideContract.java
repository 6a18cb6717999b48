package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.Backend;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A replay's destination override is checked before any row moves: it must be among the
 * destinations the reprocessor allows ({@code OUTBOX_REPLAY_DESTINATIONS}), and exist on the real
 * SNS/SQS endpoint. A refusal names the field and the destination, and leaves the dead letters, the
 * audit and the outbox exactly as they were, for a replay by ids or by filter, dry run or not. Run
 * over each way the reprocessor reaches the tables by a small subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DestinationOverrideContract {
  private final List<AutoCloseable> resources = new ArrayList<>();
  private TestDatabase db;
  private OutboxTables tables;
  private SnsClient sns;
  private SqsClient sqs;
  private String prefix;
  private String allowedTopic;
  private String allowedQueue;
  private String topicNotAllowed;
  private String arnBase;
  private ReprocessorHarness reprocessor;
  private DeadLetterTables rows;

  /** How the reprocessor reaches the tables. */
  abstract Backend backend();

  @BeforeAll
  void createTablesTopicsAndQueues() {
    db = backend().database();
    tables = db.createTables("ovr");
    AwsEndpoint aws = TestEndpoints.aws();
    sns = aws.sns();
    sqs = aws.sqs();
    prefix = "ovr-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    allowedTopic = sns.createTopic(r -> r.name(prefix + "-ok-topic")).topicArn();
    allowedQueue = sqs.createQueue(r -> r.queueName(prefix + "-ok-queue")).queueUrl();
    topicNotAllowed = sns.createTopic(r -> r.name(prefix + "-elsewhere")).topicArn();
    arnBase = allowedTopic.substring(0, allowedTopic.lastIndexOf(':') + 1);
  }

  @AfterAll
  void dropTablesTopicsAndQueues() {
    db.dropTables(tables);
    sns.deleteTopic(r -> r.topicArn(allowedTopic));
    sns.deleteTopic(r -> r.topicArn(topicNotAllowed));
    sqs.deleteQueue(r -> r.queueUrl(allowedQueue));
    sns.close();
    sqs.close();
  }

  @BeforeEach
  void emptyTables() {
    // What the stack would give: this run's topics and queues by a wildcard, as an IAM resource.
    reprocessor =
        new ReprocessorHarness(
            db,
            tables,
            100,
            backend().executor(tables, resources),
            ReprocessorHarness.allowingNamesStartingWith(arnBase.split(":")[4], prefix + "-ok-"),
            Ordering.NONE);
    rows = reprocessor.rows;
    rows.empty();
  }

  @AfterEach
  void close() {
    reprocessor.close();
    Backend.close(resources);
  }

  @Test
  final void replayByIds_toAnExistingTopicNotAllowed_isRefusedNamingIt_andNothingChanges() {
    DeadLetter dead = seeded();
    String before = rows.snapshot();

    assertRefused(
        "{\"action\":\"replay\",\"ids\":[\""
            + dead.id()
            + "\"],\"destination\":\""
            + topicNotAllowed
            + "\"}",
        topicNotAllowed,
        "OUTBOX_REPLAY_DESTINATIONS");

    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  final void replay_toAnEventBus_isRefusedSayingEventsGoThereByRouteOnly_andNothingChanges() {
    DeadLetter dead = seeded();
    String before = rows.snapshot();
    String bus = "arn:aws:events:us-east-1:000000000000:event-bus/orders";

    assertRefused(
        "{\"action\":\"replay\",\"ids\":[\"" + dead.id() + "\"],\"destination\":\"" + bus + "\"}",
        bus,
        "OUTBOX_ROUTES");

    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  final void replayByFilter_toAnAllowedTopicThatDoesNotExist_isRefused_andNothingChanges() {
    seeded();
    seeded();
    String missing = arnBase + prefix + "-ok-never-created";
    String before = rows.snapshot();

    assertRefused(
        "{\"action\":\"replay\",\"filter\":{\"eventType\":\"OrderPlaced\"},\"dryRun\":false,"
            + "\"destination\":\""
            + missing
            + "\"}",
        missing,
        "does not exist");

    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  final void replayDryRun_toAnAllowedQueueThatDoesNotExist_isRefusedToo() {
    DeadLetter dead = seeded();
    String missing = allowedQueue.replace("-ok-queue", "-ok-gone");
    String before = rows.snapshot();

    assertRefused(
        "{\"action\":\"replay\",\"dryRun\":true,\"ids\":[\""
            + dead.id()
            + "\"],\"destination\":\""
            + missing
            + "\"}",
        missing,
        "does not exist");

    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  final void replayAll_toAQueueUrlOfAnotherAccount_isRefusedByItsArn_andNothingChanges() {
    seeded();
    String otherAccount = "https://sqs.us-east-1.amazonaws.com/123456789012/" + prefix + "-ok-q";
    String before = rows.snapshot();

    assertRefused(
        "{\"action\":\"replay\",\"all\":true,\"dryRun\":false,\"destination\":\""
            + otherAccount
            + "\"}",
        "arn:aws:sqs:us-east-1:123456789012:" + prefix + "-ok-q",
        "OUTBOX_REPLAY_DESTINATIONS");

    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  final void replay_toAllowedDestinationsThatExist_goesThere_andTheAuditSaysSo() {
    DeadLetter toTopic = seeded();
    DeadLetter toQueue = seeded();

    JsonNode topic =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"ids\":[\""
                + toTopic.id()
                + "\"],\"destination\":\""
                + allowedTopic
                + "\"}");
    JsonNode queue =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"ids\":[\""
                + toQueue.id()
                + "\"],\"destination\":\""
                + allowedQueue
                + "\"}");

    assertThat(topic.path("replayed").get(0).asText()).isEqualTo(toTopic.id().toString());
    assertThat(queue.path("replayed").get(0).asText()).isEqualTo(toQueue.id().toString());
    assertThat(rows.outboxRows())
        .extracting(OutboxRow::destination)
        .containsExactlyInAnyOrder(allowedTopic, allowedQueue);
    assertThat(reprocessor.store.auditTrail(toQueue.id()).get(0).destinationOverride())
        .isEqualTo(allowedQueue);
  }

  private DeadLetter seeded() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);
    return dead;
  }

  /** The request is refused, naming the destination field and {@code named}, saying {@code why}. */
  private void assertRefused(String request, String named, String why) {
    int logs = reprocessor.logs().size();
    assertThatThrownBy(() -> reprocessor.invoke(request))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> {
              assertThat(e.field()).isEqualTo("destination");
              assertThat(e.problem()).contains(named).contains(why);
              assertThat(e.getMessage()).contains("\"nothingChanged\":true");
            });
    JsonNode refused = reprocessor.logs().get(logs);
    assertThat(refused.path("message").asText()).isEqualTo("request refused; nothing was changed");
    assertThat(refused.path("field").asText()).isEqualTo("destination");
    assertThat(reprocessor.metrics()).as("no action ran").isEmpty();
  }
}
