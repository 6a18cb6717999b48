package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.byAggregate;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.testing.PoisonRows;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * {@code OUTBOX_ORDERING=aggregate} end to end: real writers and pollers on the test bed's
 * PostgreSQL (and MariaDB), publishing to real FIFO and standard queues.
 *
 * <p>Failures are injected by wrapping the real SDK client ({@link EntryRejectingSqsClient}): the
 * local endpoint never fails a single entry of a batch transiently, nor refuses one entry for good
 * on demand, so the wrapper holds back the entries it picks and reports them failed in the real
 * response, as SQS does; every other entry goes to the real queue.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerOrderingTest {
  private static final int AGGREGATES = 100;

  private static final int EVENTS_EACH = 50;

  private static final int WRITERS = 8;
  private static final int POLLERS = 4;
  private static final AuditInfo AUDIT = new AuditInfo("req-1", "alice", "consumer fixed");

  private PollerTestBed postgres;
  private PollerTestBed mariaDb;

  @BeforeAll
  void start() {
    postgres = new PollerTestBed("ordering");
    mariaDb = new PollerTestBed("ordering", TestEndpoints.mysql());
  }

  @AfterAll
  void stop() throws Exception {
    postgres.close();
    mariaDb.close();
  }

  private static PollerConfig config(PollerTestBed bed, String queue) {
    return bed.config(
        "OUTBOX_DEFAULT_DESTINATION", queue,
        "OUTBOX_ORDERING", "aggregate",
        "OUTBOX_BACKOFF_BASE_MS", "10",
        "OUTBOX_BACKOFF_MAX_MS", "200",
        "OUTBOX_PROBE_INTERVAL_MIN_MS", "1000",
        "OUTBOX_PROBE_INTERVAL_MAX_MS", "5000",
        "OUTBOX_LEASE_SECONDS", "900",
        "OUTBOX_LOG_LEVEL", "WARN");
  }

  /**
   * 100 aggregates x 50 events, written interleaved by 8 writers (each aggregate by one of them,
   * one event per transaction, so its commit order is its event number), drained by 4 pollers at
   * once while about 5% of the entries sent fail transiently.
   */
  @ParameterizedTest(name = "fifo={0}")
  @ValueSource(booleans = {true, false})
  void concurrentWritersAndPollers_withTransientFailures_deliverEachAggregateInCommitOrder(
      boolean fifo) throws Exception {
    PollerTestBed bed = postgres;
    bed.reset();
    String queue = fifo ? bed.fifoQueue("ordered") : bed.queue("ordered");
    AtomicInteger injected = new AtomicInteger();
    EntryRejectingSqsClient flaky =
        new EntryRejectingSqsClient(
            bed.sqs,
            e -> {
              boolean fail = ThreadLocalRandom.current().nextInt(100) < 5;
              if (fail) {
                injected.incrementAndGet();
              }
              return fail;
            },
            // A code nobody knows: the message's own, so each failure spends a retry (throttling
            // and internal failures would defer the rows instead).
            "SomethingNew",
            true);
    PollerConfig config = config(bed, queue);
    List<PollerHandler> handlers = new ArrayList<>();
    for (int p = 0; p < POLLERS; p++) {
      handlers.add(bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, flaky)));
    }

    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + POLLERS);
    AtomicBoolean written = new AtomicBoolean();
    List<PollSummary> summaries = Collections.synchronizedList(new ArrayList<>());
    Map<String, List<UUID>> order;
    try {
      List<Future<Map<String, List<UUID>>>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.add(pool.submit(() -> write(bed, writer)));
      }
      List<Future<?>> pollers = new ArrayList<>();
      for (PollerHandler handler : handlers) {
        pollers.add(pool.submit(() -> drain(bed, handler, written, summaries)));
      }
      order = new LinkedHashMap<>();
      for (Future<Map<String, List<UUID>>> w : writers) {
        order.putAll(w.get());
      }
      written.set(true);
      for (Future<?> p : pollers) {
        p.get();
      }
    } finally {
      // Every poller stopped before the next case resets the tables under them.
      pool.shutdownNow();
      assertThat(pool.awaitTermination(60, TimeUnit.SECONDS))
          .as("writers and pollers stopped")
          .isTrue();
    }

    List<Message> received = bed.receive(queue, AGGREGATES * EVENTS_EACH);
    assertThat(injected.get()).as("transient failures injected").isPositive();
    assertThat(summaries.stream().mapToInt(PollSummary::retried).sum()).isPositive();
    assertThat(summaries.stream().mapToInt(PollSummary::deadLettered).sum()).isZero();
    assertThat(byAggregate(received)).isEqualTo(order);
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  /**
   * One aggregate's third event is refused for good: it is dead-lettered and parks the 47 behind
   * it, and one written after; every other aggregate completes. Then, the cause fixed, the operator
   * replays it (3..50 arrive, in order) or discards it (4..50 arrive, in order).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"replay on PostgreSQL", "discard on MariaDB"})
  void aDeadLetteredHead_parksItsAggregate_untilItIsReplayedOrDiscarded(String how)
      throws Exception {
    boolean replay = how.startsWith("replay");
    PollerTestBed bed = replay ? postgres : mariaDb;
    bed.reset();
    int aggregates = 10;
    String queue = bed.fifoQueue("parked");
    AtomicBoolean broken = new AtomicBoolean(true);
    EntryRejectingSqsClient refusing =
        new EntryRejectingSqsClient(
            bed.sqs,
            e -> broken.get() && e.messageBody().equals(payload(7, 2)),
            "InvalidMessageContents",
            true);
    PollerConfig config = config(bed, queue);
    PollerHandler handler =
        bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, refusing));
    Map<String, List<UUID>> written = writeAll(bed, aggregates, EVENTS_EACH);
    List<UUID> parkedAggregate = written.get("agg-7");
    UUID head = parkedAggregate.get(2);

    bed.clearOutput();
    PollSummary first = drainAlone(bed, handler);
    UUID lateComer = writeOne(bed, 7, EVENTS_EACH);
    bed.invoke(handler);

    assertThat(first.deadLettered()).isEqualTo(1);
    Map<String, List<UUID>> received = byAggregate(bed.receive(queue, aggregates * EVENTS_EACH));
    Map<String, List<UUID>> expected = new LinkedHashMap<>(written);
    expected.put("agg-7", parkedAggregate.subList(0, 2));
    assertThat(received).isEqualTo(expected);
    // Parked by its parked-keys row alone: the 47 behind the head, and the one written after it
    // parked, wait untouched.
    assertThat(bed.count(bed.tables.messages())).isEqualTo(EVENTS_EACH - 3 + 1);
    assertThat(bed.outboxRow(parkedAggregate.get(3)).get("last_error_code")).isNull();
    JsonNode dead = bed.logs("ERROR").get(0);
    assertThat(dead.path("eventId").asText()).isEqualTo(head.toString());
    assertThat(dead.path("parkedEvents").asInt()).isEqualTo(EVENTS_EACH - 3);
    JsonNode metrics = bed.metricLines().get(bed.metricLines().size() - 1);
    assertThat(metrics.path("ParkedKeys").asInt()).isEqualTo(1);
    assertThat(metrics.path("ParkedEvents").asInt()).isEqualTo(EVENTS_EACH - 3 + 1);

    // The operator fixes the cause, looks first, then releases.
    broken.set(false);
    try (JdbcConnectionProvider connections = Stores.connections(bed.db, bed.tables)) {
      DeadLetterStore deadLetters =
          DeadLetterStore.builder(JdbcExecutor.of(connections))
              .tables(bed.tables)
              .clock(bed.clock)
              .build();
      assertThat(deadLetters.parkedKeys(10).keys())
          .singleElement()
          .satisfies(
              k -> {
                assertThat(k.deadLetterId()).isEqualTo(head);
                assertThat(k.parkedEvents()).isEqualTo(EVENTS_EACH - 3);
                assertThat(k.waitingEvents()).isEqualTo(EVENTS_EACH - 3 + 1);
              });
      DeadLetterActionResult dryRun =
          replay
              ? deadLetters.replay(List.of(head), null, true, AUDIT)
              : deadLetters.discard(List.of(head), true, AUDIT);
      assertThat(dryRun.released()).extracting(ParkedKey::waitingEvents).containsExactly(48L);
      assertThat(bed.receive(queue, 0)).isEmpty();
      DeadLetterActionResult done =
          replay
              ? deadLetters.replay(List.of(head), null, false, AUDIT)
              : deadLetters.discard(List.of(head), false, AUDIT);
      assertThat(done.released()).extracting(ParkedKey::aggregateId).containsExactly("agg-7");
    }
    PollSummary released = drainAlone(bed, handler);

    List<UUID> expectedAfter =
        new ArrayList<>(parkedAggregate.subList(replay ? 2 : 3, parkedAggregate.size()));
    expectedAfter.add(lateComer);
    assertThat(released.published()).isEqualTo(expectedAfter.size());
    assertThat(byAggregate(bed.receive(queue, expectedAfter.size())))
        .isEqualTo(Map.of("agg-7", expectedAfter));
    assertThat(bed.count(bed.tables.messages())).isZero();
    assertThat(bed.count(bed.tables.parkedKeys())).isZero();
  }

  /**
   * An aggregate's head is a row the poller cannot read (written around the writer): the claim
   * dead-letters it and parks its aggregate in the same transaction, the one ERROR line says so,
   * and every other aggregate completes.
   */
  @Test
  void anUnreadableHead_isDeadLetteredByTheClaim_andParksItsAggregate() throws Exception {
    PollerTestBed bed = mariaDb;
    bed.reset();
    int aggregates = 4;
    String queue = bed.fifoQueue("unreadable");
    PollerConfig config = config(bed, queue);
    PollerHandler handler = bed.handler(config);
    Map<String, List<UUID>> written = writeAll(bed, aggregates, EVENTS_EACH);
    UUID head = written.get("agg-2").get(0);
    PoisonRows.poison(bed.db, bed.tables, head, PoisonRows.named("payload-not-json"));

    bed.clearOutput();
    drainAlone(bed, handler);

    Map<String, List<UUID>> expected = new LinkedHashMap<>(written);
    expected.remove("agg-2");
    assertThat(byAggregate(bed.receive(queue, (aggregates - 1) * EVENTS_EACH))).isEqualTo(expected);
    assertThat(bed.count(bed.tables.messages())).isEqualTo(EVENTS_EACH - 1);
    assertThat(bed.count(bed.tables.parkedKeys())).isEqualTo(1);
    assertThat(bed.outboxRow(written.get("agg-2").get(1)).get("last_error_code")).isNull();
    List<JsonNode> errors = bed.logs("ERROR");
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).path("eventId").asText()).isEqualTo(head.toString());
    assertThat(errors.get(0).path("errorCode").asText()).isEqualTo(UnreadableRow.ERROR_CODE);
    assertThat(errors.get(0).path("parkedEvents").asInt()).isEqualTo(EVENTS_EACH - 1);
  }

  /**
   * A poller claims an aggregate's head and dies (its lease held, nothing recorded): the aggregate
   * waits for the lease while the others flow, then resumes with that head, in order.
   */
  @Test
  void aHeadLeasedByAKilledPoller_holdsUpItsAggregateUntilTheLeaseEnds_thenItResumesInOrder()
      throws Exception {
    PollerTestBed bed = postgres;
    bed.reset();
    String queue = bed.queue("killed");
    PollerConfig config = config(bed, queue);
    Map<String, List<UUID>> written = writeAll(bed, 3, 5);
    OutboxStore store = bed.store(config);
    List<OutboxMessage> taken =
        store.claim("poller:killed", 1, bed.clock.instant(), config.timing().lease()).messages();
    assertThat(taken).extracting(OutboxMessage::aggregateId).containsExactly("agg-0");
    PollerHandler handler = bed.handler(config);

    PollSummary whileLeased = bed.invoke(handler);
    bed.clock.advance(Duration.ofSeconds(5));
    bed.invoke(handler);

    assertThat(whileLeased.published()).isEqualTo(10);
    Map<String, List<UUID>> others = new LinkedHashMap<>(written);
    others.remove("agg-0");
    assertThat(byAggregate(bed.receive(queue, 10))).isEqualTo(others);
    assertThat(bed.count(bed.tables.messages())).isEqualTo(5);

    bed.clock.advance(config.timing().lease());
    PollSummary afterLease = drainAlone(bed, handler);

    assertThat(afterLease.published()).isEqualTo(5);
    assertThat(byAggregate(bed.receive(queue, 5))).isEqualTo(Map.of("agg-0", written.get("agg-0")));
  }

  // ---- writing

  private static String payload(int aggregate, int n) {
    return "{\"aggregate\":" + aggregate + ",\"n\":" + n + "}";
  }

  private static OutboxEvent event(int aggregate, int n) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId("agg-" + aggregate)
        .eventType("order.changed")
        .payload(payload(aggregate, n))
        .build();
  }

  /**
   * Writer {@code w} of {@link #WRITERS}: the aggregates {@code a % WRITERS == w}, event by event
   * in turn, one transaction each; returns each aggregate's event ids in commit order.
   */
  private static Map<String, List<UUID>> write(PollerTestBed bed, int w) throws Exception {
    OutboxWriter writer = OutboxWriter.builder().tables(bed.tables).clock(bed.clock).build();
    Map<String, List<UUID>> order = new LinkedHashMap<>();
    try (Connection c = bed.db.open()) {
      c.setAutoCommit(false);
      for (int n = 0; n < EVENTS_EACH; n++) {
        for (int a = w; a < AGGREGATES; a += WRITERS) {
          OutboxEvent e = event(a, n);
          writer.append(c, e);
          c.commit();
          order.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>()).add(e.id());
        }
      }
    }
    return order;
  }

  /** One writer, aggregates interleaved; each aggregate's ids in commit order. */
  private static Map<String, List<UUID>> writeAll(PollerTestBed bed, int aggregates, int each)
      throws Exception {
    Map<String, List<UUID>> order = new LinkedHashMap<>();
    OutboxWriter writer = OutboxWriter.builder().tables(bed.tables).clock(bed.clock).build();
    try (Connection c = bed.db.open()) {
      c.setAutoCommit(false);
      for (int n = 0; n < each; n++) {
        for (int a : IntStream.range(0, aggregates).toArray()) {
          OutboxEvent e = event(a, n);
          writer.append(c, e);
          c.commit();
          order.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>()).add(e.id());
        }
      }
    }
    return order;
  }

  private static UUID writeOne(PollerTestBed bed, int aggregate, int n) {
    return bed.append(event(aggregate, n)).get(0);
  }

  // ---- polling

  /**
   * Invokes the handler until the writers are done and the outbox is empty, the clock moving half a
   * second after each invocation so that backoffs and probes come due.
   */
  private static Void drain(
      PollerTestBed bed,
      PollerHandler handler,
      AtomicBoolean written,
      List<PollSummary> summaries) {
    // A liveness bound, not a speed check: unloaded, each case drains in 15-30 s, and in about two
    // minutes at a load average of 14 on two cores.
    long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
    while (!(written.get() && bed.count(bed.tables.messages()) == 0)) {
      if (Thread.currentThread().isInterrupted()) {
        return null; // the test is over (a writer or another poller failed): stop
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the outbox did not drain in 300 s: " + bed.count(bed.tables.messages()) + " left");
      }
      summaries.add(bed.invoke(handler));
      bed.clock.advance(Duration.ofMillis(500));
    }
    return null;
  }

  /** Invokes the handler until an invocation publishes nothing; the published totals. */
  private static PollSummary drainAlone(PollerTestBed bed, PollerHandler handler) {
    int published = 0;
    int deadLettered = 0;
    for (int i = 0; i < 200; i++) {
      PollSummary s = bed.invoke(handler);
      published += s.published();
      deadLettered += s.deadLettered();
      bed.clock.advance(Duration.ofMillis(500));
      if (s.claimed() == 0) {
        break;
      }
    }
    return new PollSummary(0, published, 0, deadLettered, 0, 0, 0, 0, 0, "drained", 0L);
  }
}
