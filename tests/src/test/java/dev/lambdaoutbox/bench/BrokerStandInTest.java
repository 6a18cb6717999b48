package dev.lambdaoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.EmbeddedPoller;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.PublishBatchRequestEntry;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * The broker stand-in speaks the wire protocols of the AWS SDK's real SNS and SQS clients (SQS in
 * AWS JSON 1.0 with the MD5 digests the SDK checks, SNS in the query protocol), answers each call
 * no sooner than its delay, and records every event the poller published through it, in its child
 * process as the benchmarks run it.
 */
class BrokerStandInTest {
  private static final Duration DELAY = Duration.ofMillis(60);
  private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

  @Test
  void theSdkClientsPublishToIt_eachCallAnsweredAfterItsDelay_andEveryEventIdRecorded()
      throws Exception {
    try (BrokerStandInProcess broker = BrokerStandInProcess.start(DELAY, DELAY.plusMillis(10));
        SqsClient sqs = broker.aws().sqs();
        SnsClient sns = broker.aws().sns()) {
      String queue = BrokerStandIn.queueUrl(broker.aws().endpoint(), "standin");
      String topic = "arn:aws:sns:us-east-1:000000000000:standin";
      List<String> ids = new ArrayList<>();
      List<Long> tookNanos = new ArrayList<>();

      tookNanos.add(
          timed(
              () -> {
                List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                  String id = UUID.randomUUID().toString();
                  ids.add(id);
                  entries.add(
                      SendMessageBatchRequestEntry.builder()
                          .id("e" + i)
                          .messageBody("{\"n\":" + i + ",\"text\":\"é & <b>\"}")
                          .messageAttributes(sqsAttributes(id))
                          .build());
                }
                assertThat(
                        sqs.sendMessageBatch(r -> r.queueUrl(queue).entries(entries)).successful())
                    .hasSize(10);
              }));
      String single = UUID.randomUUID().toString();
      ids.add(single);
      tookNanos.add(
          timed(
              () ->
                  assertThat(
                          sqs.sendMessage(
                                  r ->
                                      r.queueUrl(queue)
                                          .messageBody("one")
                                          .messageAttributes(sqsAttributes(single)))
                              .messageId())
                      .isNotBlank()));
      String batched = UUID.randomUUID().toString();
      ids.add(batched);
      tookNanos.add(
          timed(
              () ->
                  assertThat(
                          sns.publishBatch(
                                  r ->
                                      r.topicArn(topic)
                                          .publishBatchRequestEntries(
                                              PublishBatchRequestEntry.builder()
                                                  .id("only")
                                                  .message("{\"a\":1}")
                                                  .messageAttributes(snsAttributes(batched))
                                                  .build()))
                              .successful())
                      .singleElement()
                      .satisfies(s -> assertThat(s.id()).isEqualTo("only"))));
      String published = UUID.randomUUID().toString();
      ids.add(published);
      tookNanos.add(
          timed(
              () ->
                  assertThat(
                          sns.publish(
                                  r ->
                                      r.topicArn(topic)
                                          .message("two")
                                          .messageAttributes(snsAttributes(published)))
                              .messageId())
                      .isNotBlank()));

      assertThat(tookNanos).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(DELAY.toNanos()));
      assertThat(broker.newAcceptances()).extracting(a -> a[0]).containsExactlyElementsOf(ids);
      BrokerStandInProcess.Stats stats = broker.stats();
      assertThat(stats.calls()).isEqualTo(4);
      assertThat(stats.messages()).isEqualTo(13);
      assertThat(stats.meanCallMillis()).isGreaterThanOrEqualTo(DELAY.toMillis());
      assertThatThrownBy(() -> sqs.listQueues())
          .isInstanceOf(AwsServiceException.class)
          .hasMessageContaining("ListQueues");
    }
  }

  @Test
  void thePollerPublishesEveryRowThroughIt_toAQueueAndToATopic() throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    try (BrokerStandInProcess broker = BrokerStandInProcess.start(DELAY, DELAY.plusMillis(10))) {
      for (String destination :
          List.of(
              BrokerStandIn.queueUrl(broker.aws().endpoint(), "poller"),
              "arn:aws:sns:us-east-1:000000000000:poller")) {
        OutboxTables tables = db.createTables("standin");
        try (JdbcConnectionProvider connections = Stores.connections(db, tables)) {
          List<String> written = CommittedEvents.write(db, tables, 25, 5);
          PollSummary summary = run(db, tables, connections, broker.aws(), destination);
          assertThat(summary.published()).as(destination).isEqualTo(25);
          assertThat(broker.newAcceptances())
              .extracting(a -> a[0])
              .containsExactlyInAnyOrderElementsOf(written);
        } finally {
          db.dropTables(tables);
        }
      }
    }
  }

  private static PollSummary run(
      TestDatabase db,
      OutboxTables tables,
      JdbcConnectionProvider connections,
      AwsEndpoint aws,
      String destination) {
    PollerConfig config =
        PollerConfig.fromEnvironment(
            Map.of(
                "OUTBOX_JDBC_URL",
                db.jdbcUrl(),
                "OUTBOX_DB_USER",
                db.user(),
                "OUTBOX_DB_PASSWORD",
                db.password(),
                "OUTBOX_TABLE_PREFIX",
                tables.prefix(),
                PollerVariables.DEFAULT_DESTINATION.name(),
                destination));
    OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();
    Clock clock = Clock.systemUTC();
    try (SnsClient sns = aws.sns();
        SqsClient sqs = aws.sqs();
        EmbeddedPoller poller =
            EmbeddedPoller.builder(config, store)
                .brokers(sns, sqs)
                .logger(
                    new JsonLogger(
                        "standin", BrokerStandInTest.class, JsonLogger.Level.WARN, DISCARD, clock))
                .metrics(new EmfMetrics("Test", "standin", DISCARD, clock))
                .build()) {
      return poller.run(() -> 60_000, "standin-" + UUID.randomUUID());
    }
  }

  private static Map<String, MessageAttributeValue> sqsAttributes(String eventId) {
    return Map.of(
        "eventId",
        MessageAttributeValue.builder().dataType("String").stringValue(eventId).build(),
        "eventType",
        MessageAttributeValue.builder().dataType("String").stringValue("order.created").build());
  }

  private static Map<String, software.amazon.awssdk.services.sns.model.MessageAttributeValue>
      snsAttributes(String eventId) {
    return Map.of(
        "eventId",
        software.amazon.awssdk.services.sns.model.MessageAttributeValue.builder()
            .dataType("String")
            .stringValue(eventId)
            .build());
  }

  private static long timed(Runnable call) {
    long start = System.nanoTime();
    call.run();
    return System.nanoTime() - start;
  }
}
