package dev.lambdaoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.reprocessor.PollerRunner;
import dev.lambdaoutbox.testing.EventSourceMapping;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 1,000 events over the whole path, as production runs it: written with the outbox writer,
 * published by the real poller to an SNS topic, fanned out to two SQS queues (one with raw message
 * delivery, one receiving SNS's JSON envelope), and consumed by {@link SqsInboxConsumer} fed the
 * way Lambda's event source mapping feeds it (batches of up to 10 from real {@code ReceiveMessage}
 * calls, successes deleted, reported failures left to come back after the visibility timeout). The
 * raw queue's consumer keeps its inbox and ledger in PostgreSQL, the envelope queue's in MariaDB.
 *
 * <p>About 5% of the events fail in their handler on first delivery, after writing their ledger
 * row; every tenth invocation "times out" after doing its work, so its whole batch comes back. In
 * the end every event is in each ledger exactly once.
 */
class SqsInboxConsumerEndToEndTest {
  private static final int EVENTS = 1_000;
  private static final int VISIBILITY_SECONDS = 2;

  /**
   * Topics, each with a raw and an envelope queue, the events spread over them: moto's cost per
   * call grows with the depth of the queue, so four shallow queues drain far faster than one deep
   * one.
   */
  private static final int LANES = 4;

  private static final Duration DEADLINE = Duration.ofMinutes(8);

  @Test
  @Timeout(600)
  void thousandEvents_throughRawAndEnvelopeQueues_areAppliedExactlyOnceDespiteFailuresAndRetries()
      throws Exception {
    TestDatabase postgres = TestEndpoints.postgres();
    OutboxTables outbox = postgres.createTables("e2e");
    ExecutorService pool = Executors.newFixedThreadPool(1 + 2 * LANES);
    try (BrokerFixture broker = new BrokerFixture();
        PollerRunner poller = new PollerRunner(postgres, outbox);
        ConsumerDatabase rawDb = new ConsumerDatabase(postgres, "e2eraw");
        ConsumerDatabase envelopeDb = new ConsumerDatabase(TestEndpoints.mysql(), "e2eenv")) {
      FlakyConsumer raw = new FlakyConsumer("ledger-raw", rawDb);
      FlakyConsumer envelope = new FlakyConsumer("ledger-envelope", envelopeDb);
      List<String> topics = new ArrayList<>();
      Map<FlakyConsumer, List<EventSourceMapping>> mappings =
          Map.of(raw, new ArrayList<>(), envelope, new ArrayList<>());
      for (int lane = 0; lane < LANES; lane++) {
        String topic = broker.topic("payments" + lane);
        String rawQueue = broker.queue("raw" + lane, VISIBILITY_SECONDS);
        String envelopeQueue = broker.queue("envelope" + lane, VISIBILITY_SECONDS);
        broker.subscribe(topic, rawQueue, true);
        broker.subscribe(topic, envelopeQueue, false);
        topics.add(topic);
        mappings.get(raw).add(mapping(broker, rawQueue, raw.consumer::handle));
        mappings.get(envelope).add(mapping(broker, envelopeQueue, envelope.consumer::handle));
      }
      Set<UUID> written = writeEvents(postgres, outbox, topics);
      long started = System.nanoTime();
      long deadline = started + DEADLINE.toNanos();

      List<Future<?>> running = new ArrayList<>();
      running.add(
          pool.submit(
              () -> {
                while (System.nanoTime() < deadline && outboxRows(postgres, outbox) > 0) {
                  poller.poll();
                }
              }));
      mappings.forEach(
          (consumer, lanes) ->
              lanes.forEach(m -> running.add(pool.submit(() -> drain(m, consumer, deadline)))));
      for (Future<?> f : running) {
        f.get();
      }

      assertThat(outboxRows(postgres, outbox)).as("every event published").isZero();
      for (FlakyConsumer c : List.of(raw, envelope)) {
        Map<UUID, Integer> applied = c.db.applications(c.name);
        assertThat(applied.keySet()).as(c.name + ": every event").isEqualTo(written);
        assertThat(applied.values()).as(c.name + ": each once").containsOnly(1);
        assertThat(c.db.inboxRows(c.name)).isEqualTo(EVENTS);
        assertThat(c.failedOnce).as(c.name + ": 5% failed on first delivery").hasSize(50);
        List<EventSourceMapping> lanes = mappings.get(c);
        assertThat(lanes.stream().mapToInt(m -> m.failuresReported()).sum()).isEqualTo(50);
        int delivered = lanes.stream().mapToInt(m -> m.recordsDelivered()).sum();
        assertThat(delivered)
            .as(c.name + ": failed and timed-out batches came back")
            .isGreaterThan(EVENTS + 50);
        List<JsonNode> warnings = c.log.lines("WARN");
        assertThat(warnings).hasSize(50);
        assertThat(warnings)
            .allSatisfy(
                l -> {
                  assertThat(l.get("eventId").asText()).isIn(c.failedOnce);
                  assertThat(l.get("messageId").asText()).isNotBlank();
                  assertThat(l.get("errorMessage").asText()).startsWith("simulated failure");
                });
        System.out.printf(
            "%s: %d records delivered in %d invocations, done %d s after publishing began%n",
            c.name,
            delivered,
            lanes.stream().mapToInt(m -> m.invocations()).sum(),
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
      }
    } finally {
      pool.shutdownNow();
      postgres.dropTables(outbox);
    }
  }

  /** A consumer whose handler fails once for every 20th event, after writing its ledger row. */
  private static final class FlakyConsumer {
    final String name;
    final ConsumerDatabase db;
    final Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    final CapturedLog log = new CapturedLog();
    final SqsInboxConsumer consumer;

    FlakyConsumer(String name, ConsumerDatabase db) {
      this.name = name;
      this.db = db;
      this.consumer =
          SqsInboxConsumer.builder()
              .jdbi(db.jdbi)
              .consumerName(name)
              .tables(db.tables)
              .logOutput(log.out)
              .handler(
                  (handle, event) -> {
                    db.apply(handle, name, event);
                    int n = event.payload(ConsumerDatabase.Payment.class).amount();
                    if (n % 20 == 7 && failedOnce.add(event.eventId().toString())) {
                      throw new IllegalStateException(
                          "simulated failure on first delivery of " + event.eventId());
                    }
                  })
              .build();
    }
  }

  private static EventSourceMapping mapping(
      BrokerFixture broker, String queueUrl, Function<SQSEvent, SQSBatchResponse> function) {
    return new EventSourceMapping(
        broker.sqs, queueUrl, broker.arnOf(queueUrl), broker.aws.region(), function);
  }

  /**
   * Polls like the event source mapping until every event is applied and the queue has stayed empty
   * for longer than the visibility timeout (so a batch still due back would have shown up).
   */
  private static void drain(EventSourceMapping mapping, FlakyConsumer c, long deadline) {
    long emptySince = -1;
    while (System.nanoTime() < deadline) {
      boolean timesOut = mapping.invocations() % 10 == 9;
      int received = timesOut ? mapping.pollAndTimeOut() : mapping.poll();
      if (received > 0) {
        emptySince = -1;
      } else if (c.db.inboxRows(c.name) == EVENTS) {
        emptySince = emptySince < 0 ? System.nanoTime() : emptySince;
        if (System.nanoTime() - emptySince > TimeUnit.SECONDS.toNanos(VISIBILITY_SECONDS + 2)) {
          return;
        }
      }
    }
  }

  /** Writes the events, spread over the topics, in transactions of 100. */
  private static Set<UUID> writeEvents(TestDatabase db, OutboxTables tables, List<String> topics)
      throws Exception {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      events.add(
          OutboxEvent.builder()
              .aggregateType("order")
              .aggregateId("order-" + i)
              .eventType("payment.captured")
              .payload(new ConsumerDatabase.Payment("order-" + i, i))
              .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
              .destination(topics.get(i % topics.size()))
              .build());
    }
    try (var c = db.open()) {
      c.setAutoCommit(false);
      for (int from = 0; from < EVENTS; from += 100) {
        writer.appendAll(c, events.subList(from, from + 100));
        c.commit();
      }
    }
    return events.stream().map(OutboxEvent::id).collect(Collectors.toSet());
  }

  private static long outboxRows(TestDatabase db, OutboxTables tables) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT count(*) FROM " + tables.messages()).mapTo(Long.class).one());
  }
}
