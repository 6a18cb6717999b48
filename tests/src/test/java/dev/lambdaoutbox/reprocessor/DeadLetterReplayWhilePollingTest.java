package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static dev.lambdaoutbox.reprocessor.PollerRunner.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Replays while the poller drains: two operators replay the same dead letters, in opposite orders,
 * while the poller keeps publishing (and deleting) what lands in the outbox. Every event must reach
 * SQS exactly once: none lost, none put into the outbox twice.
 */
class DeadLetterReplayWhilePollingTest {
  private static final int DEAD = 150;
  private static final int FRESH = 150;
  private static final int IDS_PER_REQUEST = 25;

  /** Between one operator's requests, so the poller delivers some replayed rows in between. */
  private static final long PAUSE_MS = 400;

  private final TestDatabase db = TestEndpoints.postgres();
  private OutboxTables tables;
  private PollerRunner poller;
  private final List<ReprocessorHarness> operators = new ArrayList<>();
  private final AtomicInteger skipped = new AtomicInteger();

  @BeforeEach
  void start() {
    tables = db.createTables("dlc");
    poller = new PollerRunner(db, tables);
    operators.add(new ReprocessorHarness(db, tables, 10));
    operators.add(new ReprocessorHarness(db, tables, 10));
  }

  @AfterEach
  void stop() {
    operators.forEach(ReprocessorHarness::close);
    poller.close();
    db.dropTables(tables);
  }

  @Test
  void replaysWhileThePollerDrains_deliverEveryEventExactlyOnce() throws Exception {
    String queue = poller.queue("concurrent");
    List<DeadLetter> dead = new ArrayList<>();
    for (int i = 0; i < DEAD; i++) {
      dead.add(deadLetter().destination(queue).idempotencyKey("replayed-" + i).build());
    }
    DeadLetterTables rows = operators.get(0).rows;
    rows.seed(dead.toArray(DeadLetter[]::new));
    List<UUID> fresh = appendFresh(queue);
    List<UUID> deadIds = dead.stream().map(DeadLetter::id).toList();
    List<List<UUID>> requests = chunks(deadIds);
    List<List<UUID>> reversed = new ArrayList<>(requests);
    Collections.reverse(reversed);

    ExecutorService pool = Executors.newFixedThreadPool(3);
    AtomicBoolean replaysDone = new AtomicBoolean();
    CountDownLatch go = new CountDownLatch(1);
    try {
      Future<Integer> polling =
          pool.submit(
              () -> {
                go.await();
                int published = 0;
                PollSummary last;
                do {
                  boolean finalRound = replaysDone.get();
                  last = poller.poll();
                  published += last.published();
                  if (finalRound && last.claimed() == 0) {
                    return published;
                  }
                } while (true);
              });
      Future<Integer> first = pool.submit(() -> replayAll(operators.get(0), requests, go));
      Future<Integer> second = pool.submit(() -> replayAll(operators.get(1), reversed, go));
      go.countDown();
      int replayed = first.get(2, TimeUnit.MINUTES) + second.get(2, TimeUnit.MINUTES);
      replaysDone.set(true);
      int published = polling.get(2, TimeUnit.MINUTES);

      assertThat(replayed).isEqualTo(DEAD);
      assertThat(published).isEqualTo(DEAD + FRESH);
    } finally {
      pool.shutdownNow();
    }

    List<Message> received = poller.receive(queue, DEAD + FRESH);
    Map<String, Integer> deliveries = new HashMap<>();
    received.forEach(m -> deliveries.merge(attribute(m, "eventId"), 1, Integer::sum));
    Set<String> expected = new HashSet<>();
    deadIds.forEach(id -> expected.add(id.toString()));
    fresh.forEach(id -> expected.add(id.toString()));
    assertThat(deliveries.keySet()).isEqualTo(expected);
    assertThat(deliveries.values()).containsOnly(1);
    assertThat(rows.deadIds()).isEmpty();
    assertThat(rows.outboxIds()).isEmpty();
    assertThat(rows.auditCount()).isEqualTo(DEAD);
    // Each id was moved by one operator and skipped by the other (already back in the outbox, or
    // already delivered: which one depends on timing, so it is not asserted).
    assertThat(skipped.get()).isEqualTo(DEAD);

    // Once everything is delivered, replaying again finds nothing dead and changes nothing.
    JsonNode again =
        operators
            .get(0)
            .invoke("{\"action\":\"replay\",\"ids\":[" + quoted(requests.get(0)) + "]}");
    assertThat(again.path("replayed")).isEmpty();
    assertThat(again.path("skipped"))
        .extracting(skip -> skip.path("reason").asText())
        .containsOnly("NOT_DEAD");
    assertThat(rows.outboxIds()).isEmpty();
  }

  private static String quoted(List<UUID> ids) {
    return ids.stream().map(id -> "\"" + id + "\"").collect(Collectors.joining(","));
  }

  /** One operator's replays, request after request; returns how many it moved. */
  private int replayAll(ReprocessorHarness operator, List<List<UUID>> requests, CountDownLatch go)
      throws InterruptedException {
    go.await();
    int replayed = 0;
    for (List<UUID> ids : requests) {
      Thread.sleep(PAUSE_MS);
      JsonNode report = operator.invoke("{\"action\":\"replay\",\"ids\":[" + quoted(ids) + "]}");
      replayed += report.path("replayed").size();
      skipped.addAndGet(report.path("skipped").size());
      assertThat(report.path("replayed").size() + report.path("skipped").size())
          .isEqualTo(ids.size());
    }
    return replayed;
  }

  private List<UUID> appendFresh(String queue) throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < FRESH; i++) {
      events.add(
          OutboxEvent.builder()
              .aggregateType("Order")
              .aggregateId("fresh-" + i)
              .eventType("OrderPlaced")
              .payload("{\"n\":" + i + "}")
              .destination(queue)
              .occurredAt(Instant.now())
              .build());
    }
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      writer.appendAll(c, events);
      c.commit();
    }
    return events.stream().map(OutboxEvent::id).toList();
  }

  private static List<List<UUID>> chunks(List<UUID> ids) {
    List<List<UUID>> chunks = new ArrayList<>();
    for (int from = 0; from < ids.size(); from += IDS_PER_REQUEST) {
      chunks.add(ids.subList(from, Math.min(ids.size(), from + IDS_PER_REQUEST)));
    }
    return chunks;
  }
}
