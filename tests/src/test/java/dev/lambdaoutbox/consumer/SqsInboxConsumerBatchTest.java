package dev.lambdaoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse.BatchItemFailure;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.reprocessor.PollerRunner;
import dev.lambdaoutbox.testing.EventSourceMapping;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Single batches from real queues, fed to {@link SqsInboxConsumer} as Lambda feeds them: a FIFO
 * batch that fails in the middle, and records that carry no event id.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqsInboxConsumerBatchTest {
  private static final int VISIBILITY_SECONDS = 2;

  private final TestDatabase postgres = TestEndpoints.postgres();
  private OutboxTables outbox;
  private BrokerFixture broker;
  private PollerRunner poller;
  private ConsumerDatabase consumerDb;

  @BeforeAll
  void setUp() {
    outbox = postgres.createTables("batch");
    broker = new BrokerFixture();
    poller = new PollerRunner(postgres, outbox);
    consumerDb = new ConsumerDatabase(postgres, "batchc");
  }

  @AfterAll
  void tearDown() {
    for (AutoCloseable c : new AutoCloseable[] {poller, broker, consumerDb}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    postgres.dropTables(outbox);
  }

  @Test
  @Timeout(120)
  void fifoBatch_whenTheFourthRecordFails_reportsItAndEveryLaterOneAndAppliesThemInOrderLater()
      throws Exception {
    String queue = broker.fifoQueue("fifo", VISIBILITY_SECONDS);
    // One aggregate: one message group, delivered in the order written.
    List<UUID> ids = publish(queue, 10, i -> "order-7");
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean failedOnce = new AtomicBoolean();
    SqsInboxConsumer consumer =
        consumer(
            "fifo",
            (handle, event) -> {
              consumerDb.apply(handle, "fifo", event);
              if (event.eventId().equals(ids.get(3)) && failedOnce.compareAndSet(false, true)) {
                throw new IllegalStateException("simulated failure");
              }
              order.add(event.eventId().toString());
            },
            new CapturedLog());
    EventSourceMapping mapping =
        new EventSourceMapping(
            broker.sqs, queue, broker.arnOf(queue), broker.aws.region(), consumer::handle);

    List<Message> batch = receiveAll(mapping, 10);
    assertThat(batch).extracting(m -> PollerRunner.attribute(m, "eventId")).isEqualTo(strings(ids));
    SQSBatchResponse response = mapping.invoke(batch);

    assertThat(failedIds(response)).isEqualTo(messageIds(batch.subList(3, 10)));
    assertThat(order).as("applied before the failure").isEqualTo(strings(ids.subList(0, 3)));
    assertThat(consumerDb.applications("fifo")).containsOnlyKeys(ids.subList(0, 3));

    // Lambda deletes the three that succeeded; SQS delivers the seven again, in order. (moto 5.2.5
    // redelivers only the last message of a FIFO group after the visibility timeout, so the
    // reported records are fed again as they were received.)
    mapping.deleteAllBut(batch, response);
    List<Message> again = batch.subList(3, 10);
    SQSBatchResponse second = mapping.invoke(again);
    mapping.deleteAllBut(again, second);

    assertThat(second.getBatchItemFailures()).isEmpty();
    assertThat(order).isEqualTo(strings(ids));
    assertThat(consumerDb.applications("fifo")).containsOnlyKeys(ids);
    assertThat(consumerDb.applications("fifo").values()).containsOnly(1);
  }

  @Test
  @Timeout(120)
  void batch_withRecordsWithoutEventId_reportsExactlyThoseAndLogsWhatIsMissing() throws Exception {
    String topic = broker.topic("noid");
    String rawQueue = broker.queue("noid-raw", VISIBILITY_SECONDS);
    String envelopeQueue = broker.queue("noid-env", VISIBILITY_SECONDS);
    broker.subscribe(topic, rawQueue, true);
    broker.subscribe(topic, envelopeQueue, false);
    List<UUID> ids = publish(topic, 2, i -> "order-" + i);
    // Not from the outbox: published to the topic without any message attributes.
    broker.sns.publish(r -> r.topicArn(topic).message("{\"orderId\":\"order-x\",\"amount\":1}"));

    for (String queue : List.of(rawQueue, envelopeQueue)) {
      CapturedLog log = new CapturedLog();
      String name = queue.equals(rawQueue) ? "noid-raw" : "noid-envelope";
      SqsInboxConsumer consumer =
          consumer(name, (handle, event) -> consumerDb.apply(handle, name, event), log);
      EventSourceMapping mapping =
          new EventSourceMapping(
              broker.sqs, queue, broker.arnOf(queue), broker.aws.region(), consumer::handle);

      List<Message> batch = receiveAll(mapping, 3);
      SQSBatchResponse response = mapping.invoke(batch);

      List<Message> withoutId = batch.stream().filter(m -> m.body().contains("order-x")).toList();
      assertThat(withoutId).as(name).hasSize(1);
      assertThat(failedIds(response)).as(name).isEqualTo(messageIds(withoutId));
      assertThat(consumerDb.applications(name)).as(name).containsOnlyKeys(ids);
      JsonNode error = log.lines("ERROR").get(0);
      assertThat(error.get("messageId").asText()).isEqualTo(withoutId.get(0).messageId());
      assertThat(error.get("message").asText()).startsWith("unreadable record: eventId: ");
    }
  }

  // --- helpers ---------------------------------------------------------------------------------

  private SqsInboxConsumer consumer(String name, InboundEventHandler handler, CapturedLog log) {
    return SqsInboxConsumer.builder()
        .jdbi(consumerDb.jdbi)
        .consumerName(name)
        .tables(consumerDb.tables)
        .logOutput(log.out)
        .handler(handler)
        .build();
  }

  /** Writes {@code n} events to {@code destination} and has the real poller publish them. */
  private List<UUID> publish(
      String destination, int n, java.util.function.IntFunction<String> aggregateId)
      throws Exception {
    List<OutboxEvent> events =
        IntStream.range(0, n)
            .mapToObj(
                i ->
                    OutboxEvent.builder()
                        .aggregateType("order")
                        .aggregateId(aggregateId.apply(i))
                        .eventType("payment.captured")
                        .payload(new ConsumerDatabase.Payment("order-" + i, i))
                        .destination(destination)
                        .build())
            .toList();
    try (Connection c = postgres.open()) {
      c.setAutoCommit(false);
      OutboxWriter.builder().tables(outbox).build().appendAll(c, events);
      c.commit();
    }
    assertThat(poller.poll().published()).isEqualTo(n);
    return events.stream().map(OutboxEvent::id).toList();
  }

  /** Receives until {@code n} messages have come (or 30 s passed), as one batch. */
  private static List<Message> receiveAll(EventSourceMapping mapping, int n) {
    List<Message> batch = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (batch.size() < n && System.nanoTime() < deadline) {
      batch.addAll(mapping.receive());
    }
    assertThat(batch).hasSize(n);
    return batch;
  }

  private static List<String> failedIds(SQSBatchResponse response) {
    return response.getBatchItemFailures().stream()
        .map(BatchItemFailure::getItemIdentifier)
        .toList();
  }

  private static List<String> messageIds(List<Message> messages) {
    return messages.stream().map(Message::messageId).toList();
  }

  private static List<String> strings(List<UUID> ids) {
    return ids.stream().map(UUID::toString).toList();
  }
}
