package dev.lambdaoutbox.demo;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.lambdaoutbox.consumer.InboundEvent;
import dev.lambdaoutbox.consumer.SqsInboxConsumer;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.EventSourceMapping;
import dev.lambdaoutbox.writer.Inbox;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The shop that consumes the reservations: its SQS queue, subscribed to the topics events reach it
 * by, and its consumer, an SQS-triggered function built on {@link SqsInboxConsumer} that applies
 * each event once, through the inbox, into the shop's own table ({@link DemoTables#bookings()});
 * and a second queue, which an EventBridge rule feeds ({@link PaymentsBus}), with its own function
 * ({@link BusConsumer}) on the same inbox and table. Lambda's event source mapping is played by an
 * {@link EventSourceMapping} on a thread of its own: batches of up to 10, the failed ones left for
 * redelivery.
 *
 * <p>It counts what it was handed (every copy of every event) and what it applied; the difference
 * is what the inbox absorbed.
 */
final class Shop implements AutoCloseable {
  static final String CONSUMER = "shop-service";

  private final SnsClient sns;
  private final SqsClient sqs;
  private final String queueUrl;
  private final String queueArn;
  private final String busQueueUrl;
  private final String busQueueArn;
  private final SqsInboxConsumer consumer;
  private final BusConsumer busConsumer;
  private final EventSourceMapping mapping;
  private final EventSourceMapping busMapping;
  private final Map<UUID, Integer> copies = new ConcurrentHashMap<>();
  private final AtomicLong applied = new AtomicLong();
  private final AtomicLong largestPayload = new AtomicLong();
  private final AtomicLong lastDelivery = new AtomicLong(System.nanoTime());
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> pollers;

  /**
   * @param claimCheckBucket where the poller stores the payloads too large for the shop's topic
   * @param claimCheckPrefix the key prefix of the payloads published to it
   */
  Shop(
      AwsEndpoint aws,
      S3Client s3,
      String claimCheckBucket,
      String claimCheckPrefix,
      Jdbi jdbi,
      DemoTables tables,
      String queueName) {
    this.sns = aws.sns();
    this.sqs = aws.sqs();
    this.queueUrl =
        sqs.createQueue(
                r ->
                    r.queueName(queueName)
                        .attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "5")))
            .queueUrl();
    this.queueArn = AwsEndpoint.queueArn(sqs, queueUrl);
    this.busQueueUrl =
        sqs.createQueue(
                r ->
                    r.queueName(queueName + "-bus")
                        .attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "5")))
            .queueUrl();
    this.busQueueArn = AwsEndpoint.queueArn(sqs, busQueueUrl);
    this.consumer =
        SqsInboxConsumer.builder()
            .jdbi(jdbi)
            .consumerName(CONSUMER)
            .tables(tables.outbox())
            .handler((handle, event) -> apply(handle, tables, event))
            .s3(s3)
            .claimCheckLocation(AwsEndpoint.ACCOUNT, claimCheckBucket, claimCheckPrefix)
            .logOutput(new PrintStream(OutputStream.nullOutputStream()))
            .build();
    this.busConsumer =
        new BusConsumer(
            jdbi,
            Inbox.create(tables.outbox()),
            CONSUMER,
            (handle, eventId, reservationId, eventType) ->
                book(handle, tables, eventId, reservationId, eventType));
    this.mapping = new EventSourceMapping(sqs, queueUrl, queueArn, aws.region(), this::invoke);
    this.busMapping =
        new EventSourceMapping(sqs, busQueueUrl, busQueueArn, aws.region(), this::invokeBus);
    this.pollers =
        List.of(
            new Thread(() -> pollWhileRunning(mapping), "shop-event-source-mapping"),
            new Thread(() -> pollWhileRunning(busMapping), "shop-bus-event-source-mapping"));
    pollers.forEach(t -> t.setDaemon(true));
  }

  /** Starts consuming. */
  Shop start() {
    pollers.forEach(Thread::start);
    return this;
  }

  String queueUrl() {
    return queueUrl;
  }

  /** The ARN of the queue the payments bus's rule forwards to. */
  String busQueueArn() {
    return busQueueArn;
  }

  /** Subscribes the shop's queue to {@code topicArn}, with raw message delivery. */
  void subscribe(String topicArn) {
    AwsEndpoint.subscribeRaw(sns, sqs, topicArn, queueUrl);
  }

  /** The function, as the event source mapping invokes it: each record's event id noted first. */
  private SQSBatchResponse invoke(SQSEvent event) {
    for (SQSEvent.SQSMessage record : event.getRecords()) {
      SQSEvent.MessageAttribute id = record.getMessageAttributes().get("eventId");
      if (id != null) {
        copies.merge(UUID.fromString(id.getStringValue()), 1, Integer::sum);
      }
    }
    lastDelivery.set(System.nanoTime());
    return consumer.handle(event);
  }

  /** The bus's queue's function: each record's event id (in the payload) noted first. */
  private SQSBatchResponse invokeBus(SQSEvent event) {
    for (SQSEvent.SQSMessage record : event.getRecords()) {
      UUID id = BusConsumer.eventId(record.getBody());
      if (id != null) {
        copies.merge(id, 1, Integer::sum);
      }
    }
    lastDelivery.set(System.nanoTime());
    return busConsumer.handle(event);
  }

  /** The shop's business logic: one booking row per event, in the inbox's transaction. */
  private void apply(Handle handle, DemoTables tables, InboundEvent event) {
    largestPayload.accumulateAndGet(
        event.payload().getBytes(StandardCharsets.UTF_8).length, Math::max);
    book(handle, tables, event.eventId(), event.aggregateId(), event.eventType());
  }

  private void book(
      Handle handle, DemoTables tables, UUID eventId, String reservationId, String eventType) {
    handle.execute(
        "INSERT INTO "
            + tables.bookings()
            + " (event_id, reservation_id, event_type) VALUES (?, ?, ?)",
        eventId.toString(),
        reservationId,
        eventType);
    applied.incrementAndGet();
  }

  private void pollWhileRunning(EventSourceMapping m) {
    while (running.get()) {
      try {
        m.poll();
      } catch (SdkException e) {
        pause(Duration.ofMillis(250)); // the endpoint went away for a moment; poll again
      }
    }
  }

  /** Copies of each event handed to the consumer so far. */
  Map<UUID, Integer> copies() {
    return Map.copyOf(copies);
  }

  /** Event ids handed to the consumer at least once. */
  Set<UUID> seen() {
    return new HashSet<>(copies.keySet());
  }

  /** Records handed to the consumer that it did not report as failed. */
  long handled() {
    return mapping.recordsDelivered()
        - mapping.failuresReported()
        + busMapping.recordsDelivered()
        - busMapping.failuresReported();
  }

  /** The UTF-8 size of the largest payload handed to the SNS queue's handler. */
  long largestPayloadBytes() {
    return largestPayload.get();
  }

  /** Events the consumer applied (its handler ran and committed). */
  long applied() {
    return applied.get();
  }

  /** Records handed over and reported done without being applied again: the inbox's work. */
  long absorbed() {
    return handled() - applied();
  }

  /** Waits until nothing has been delivered for {@code quiet}, at most {@code max}. */
  boolean awaitQuiet(Duration quiet, Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline) {
      if (System.nanoTime() - lastDelivery.get() >= quiet.toNanos()) {
        return true;
      }
      pause(Duration.ofMillis(100));
    }
    return false;
  }

  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    running.set(false);
    try {
      for (Thread t : pollers) {
        t.join(Duration.ofSeconds(5).toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      sqs.deleteQueue(r -> r.queueUrl(queueUrl));
      sqs.deleteQueue(r -> r.queueUrl(busQueueUrl));
    } catch (SdkException e) {
      // Best effort: a queue left behind is the demo's own, and named for this run.
    }
    sqs.close();
    sns.close();
  }
}
