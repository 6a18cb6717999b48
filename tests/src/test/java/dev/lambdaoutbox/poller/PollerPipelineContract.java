package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.store.model.OutboxStoreException;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The pipelined poller ({@code OUTBOX_PIPELINE}, on by default): it claims the next batch while it
 * publishes one and records outcomes on a second connection, against the real database, the real
 * SQS endpoint, and faults the database really shows (a session killed while it records). One
 * subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PollerPipelineContract {
  private static final int BATCH = 100;

  PollerTestBed bed;

  abstract TestDatabase database();

  /**
   * The statement that ends the sessions (other than the caller's) now blocked on a row lock while
   * writing to {@code table}, returning how many it ended, or a query that lists their ids for
   * {@link #killSql}.
   */
  abstract String blockedSessionsSql(String table);

  /** Ends the session {@code id} that {@link #blockedSessionsSql} listed. */
  abstract String killSql(long id);

  @BeforeAll
  void start() {
    bed = new PollerTestBed("pipeline", database());
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @Test
  void pipelined_everyRowArrivesOnceOnTheRealQueue_countsMatch() {
    String queue = bed.queue("once");
    List<UUID> ids = append(1_000);
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_BATCH_SIZE", "100",
            "OUTBOX_MAX_BATCH_SIZE", "100");
    assertThat(config.publishing().pipeline()).as("pipelining is the default").isTrue();

    PollSummary summary = bed.invoke(bed.handler(config));

    assertThat(summary.claimed()).isEqualTo(1_000);
    assertThat(summary.published()).isEqualTo(1_000);
    // Ten full batches, the short claim ahead, and the claim that confirms it; more when a claim
    // ahead came back short beside a recording (MariaDB skips rows a recording deletes).
    assertThat(summary.rounds()).isGreaterThanOrEqualTo(12);
    assertThat(summary.stoppedBecause()).isEqualTo("drained");
    assertThat(bed.count(bed.tables.messages())).isZero();
    Map<String, Integer> copies = new HashMap<>();
    for (Message m : bed.receive(queue, 1_000)) {
      copies.merge(attribute(m, "eventId"), 1, Integer::sum);
    }
    assertThat(copies.keySet())
        .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
    assertThat(copies.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
  }

  /**
   * Each published row's commit-to-publish latency reaches the metrics lines, however many batches
   * recorded it on the second connection: 150 rows, so past the 100 values one EMF line may carry.
   */
  @Test
  void eachPublishedRowsLatency_fromItsCreatedAt_isInTheMetricsLines_once() {
    String queue = bed.queue("latency");
    append(120);
    bed.clock.advance(Duration.ofSeconds(30));
    append(30);
    bed.clock.advance(Duration.ofMillis(60_250));

    PollSummary summary =
        bed.invoke(
            bed.handler(
                bed.config("OUTBOX_DEFAULT_DESTINATION", queue, "OUTBOX_BATCH_SIZE", "40")));

    assertThat(summary.published()).isEqualTo(150);
    List<JsonNode> lines = bed.metricLines();
    assertThat(lines).as("the invocation's line, and one for the values past 100").hasSize(2);
    assertThat(lines.get(0).get("Published").asInt()).isEqualTo(150);
    Map<Long, Integer> latencies = new TreeMap<>();
    lines.forEach(
        l -> l.get("PublishLatencyMs").forEach(v -> latencies.merge(v.asLong(), 1, Integer::sum)));
    // Written at T0 and T0+30s, published at T0+90.25s on the poller's clock.
    assertThat(latencies).isEqualTo(Map.of(90_250L, 120, 60_250L, 30));
    bed.receive(queue, 150);
  }

  @Test
  void twoPipelinedInvocationsAtOnce_publishEachRowExactlyOnce_theNextInvocationTakesWhatTheyLeft()
      throws Exception {
    Set<UUID> written = new HashSet<>(append(5_000));
    Counting counting = new Counting();
    PollerConfig config = countedConfig();
    List<PollerHandler> handlers =
        List.of(
            bed.handler(config, bed.store(config), counting),
            bed.handler(config, bed.store(config), counting));

    List<PollSummary> summaries = new ArrayList<>(bed.invokeAtOnce(handlers));
    // A claim may come back short beside rows the other poller holds locked (InnoDB's SKIP LOCKED
    // skips them), and that poller stops as drained: what is left waits for the next scheduled
    // invocation. Neither poller may publish a row the other published.
    if (bed.count(bed.tables.messages()) > 0) {
      summaries.add(bed.invoke(bed.handler(config, bed.store(config), counting)));
    }

    assertThat(counting.published.keySet()).isEqualTo(written);
    assertThat(counting.published.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(summaries.stream().mapToInt(PollSummary::published).sum()).isEqualTo(5_000);
    assertThat(summaries.stream().mapToInt(PollSummary::claimed).sum()).isEqualTo(5_000);
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  /**
   * The invocation's time runs low while the first batch is published and the second is already
   * claimed ahead: the second's rows are not sent, and are released at once (due now, no retry
   * spent, no lease), so the next invocation publishes them.
   */
  @Test
  void budgetEndsWhileABatchIsClaimedAhead_itsRowsAreReleasedAtOnce_andPublishedNextTime() {
    Set<UUID> written = new HashSet<>(append(2 * BATCH));
    PollerConfig config = countedConfig();
    AtomicLong remaining = new AtomicLong(60_000);
    Counting counting = new Counting();
    MessagePublisher timeRunsLow =
        (messages, gate) -> {
          List<Delivery> sent = counting.publish(messages, gate);
          // After the first batch's call, less than one call's time (5 s) is left before the
          // 1 s safety margin: no further call may start.
          remaining.set(5_500);
          return sent;
        };
    OutboxPoller poller = poller(config, timeRunsLow);

    PollSummary first = poller.run(remaining::get, "low-on-time");

    assertThat(first.rounds()).as("one batch claimed, one claimed ahead").isEqualTo(2);
    assertThat(first.claimed()).isEqualTo(2 * BATCH);
    assertThat(first.published()).isEqualTo(BATCH);
    assertThat(first.released()).isEqualTo(BATCH);
    assertThat(first.stoppedBecause()).isEqualTo("time");
    List<Map<String, Object>> left = bed.rows(bed.tables.messages());
    assertThat(left).hasSize(BATCH);
    assertThat(left)
        .allSatisfy(
            row -> {
              assertThat(row.get("locked_by")).isNull();
              assertThat(((Number) row.get("retry_count")).intValue()).isZero();
              assertThat((java.time.Instant) row.get("next_attempt_at"))
                  .isBeforeOrEqualTo(bed.clock.instant());
            });

    PollSummary second = poller(config, counting).run(() -> 60_000, "next");

    assertThat(second.published()).isEqualTo(BATCH);
    assertThat(counting.published.keySet()).isEqualTo(written);
    assertThat(counting.published.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  /**
   * The session recording a batch's outcomes is killed in the middle of its transaction (it has
   * deleted the sent rows and waits on a row lock the test holds on the one to retry, then the
   * server ends it): the invocation stops claiming, releases what it claimed ahead, waits for its
   * other recordings and fails as a failed recording always did. The batch not recorded stays
   * leased; after the lease the next invocation delivers it again. Every row arrives, none more
   * than twice, nothing is dead-lettered.
   */
  @Test
  void recordingSessionKilledMidTransaction_invocationFails_rowsDeliveredAgainAfterTheLease()
      throws Exception {
    Set<UUID> written = new HashSet<>(append(20 * BATCH));
    PollerConfig config = countedConfig();
    Counting counting = new Counting();
    AtomicInteger calls = new AtomicInteger();
    UUID[] locked = new UUID[1];
    try (Connection locker = bed.db.open()) {
      locker.setAutoCommit(false);
      MessagePublisher lockingThird =
          (messages, gate) -> {
            if (calls.incrementAndGet() != 3) {
              return counting.publish(messages, gate);
            }
            // The third batch: all sent but its last row, which fails and is to be retried. Its
            // recording deletes the sent rows, then waits for the lock on the retried one.
            locked[0] = messages.get(messages.size() - 1).id();
            lock(locker, locked[0]);
            List<Delivery> deliveries =
                new ArrayList<>(counting.publish(messages.subList(0, messages.size() - 1), gate));
            deliveries.add(
                new Delivery.Failed(
                    locked[0], Failure.transientFailure("Throttling", "slow down")));
            return deliveries;
          };
      ExecutorService killer = Executors.newSingleThreadExecutor();
      try {
        Future<Integer> killed = killer.submit(() -> killBlockedRecording(locker));

        assertThatThrownBy(() -> bed.invoke(bed.handler(config, bed.store(config), lockingThird)))
            .isInstanceOf(OutboxStoreException.class)
            .hasMessageContaining("record");
        assertThat(killed.get()).isEqualTo(1);
      } finally {
        killer.shutdownNow();
      }
    }

    assertThat(calls.get())
        .as("claiming stopped: at most the batches in flight were published after the third")
        .isBetween(3, 3 + 1 + 2);
    List<Map<String, Object>> leased =
        bed.rows(bed.tables.messages()).stream().filter(r -> r.get("locked_by") != null).toList();
    assertThat(leased).as("the batch whose recording failed stays leased").hasSize(BATCH);
    assertThat(leased.stream().map(r -> r.get("id"))).contains(locked[0]);

    bed.clock.advance(config.timing().lease().plusSeconds(1));
    PollSummary after = bed.invoke(bed.handler(config, bed.store(config), counting));

    assertThat(after.stoppedBecause()).isEqualTo("drained");
    assertThat(bed.count(bed.tables.messages())).isZero();
    assertThat(bed.count(bed.tables.deadLetters())).isZero();
    assertThat(counting.published.keySet()).isEqualTo(written);
    assertThat(counting.published.values()).allSatisfy(n -> assertThat(n.get()).isBetween(1, 2));
    assertThat(counting.published.values().stream().filter(n -> n.get() == 2))
        .as("the third batch's sent rows, whose recording was rolled back")
        .hasSize(BATCH - 1);
    assertThat(counting.published.get(locked[0]).get()).isEqualTo(1);
  }

  private void lock(Connection locker, UUID id) {
    try (PreparedStatement ps =
        locker.prepareStatement(
            "SELECT id FROM " + bed.tables.messages() + " WHERE id = ? FOR UPDATE")) {
      JdbcValues.setUuid(ps, 1, id, bed.db.dialect());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Waits (up to 30 s) for a session blocked on the test's row lock, ends it, then lets go of the
   * lock; how many sessions it ended.
   */
  private int killBlockedRecording(Connection locker) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Connection admin = bed.db.open()) {
      admin.setAutoCommit(true);
      while (System.nanoTime() < deadline) {
        List<Long> blocked = new ArrayList<>();
        try (PreparedStatement ps =
                admin.prepareStatement(blockedSessionsSql(bed.tables.messages()));
            ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            blocked.add(rs.getLong(1));
          }
        }
        if (!blocked.isEmpty()) {
          for (long id : blocked) {
            try (PreparedStatement kill = admin.prepareStatement(killSql(id))) {
              kill.execute();
            }
          }
          locker.rollback();
          return blocked.size();
        }
        Thread.sleep(20);
      }
    }
    locker.rollback();
    return 0;
  }

  private List<UUID> append(int rows) {
    OutboxWriter writer = OutboxWriter.builder().tables(bed.tables).clock(bed.clock).build();
    List<UUID> ids = new ArrayList<>(rows);
    for (int from = 0; from < rows; from += 1_000) {
      List<OutboxEvent> events = new ArrayList<>();
      for (int i = from; i < Math.min(rows, from + 1_000); i++) {
        events.add(event("order.created", "o-" + i).build());
      }
      ids.addAll(bed.append(writer, events));
    }
    return ids;
  }

  private PollerConfig countedConfig() {
    return bed.config(
        "OUTBOX_DEFAULT_DESTINATION",
        "https://sqs.us-east-1.amazonaws.com/123456789012/counted",
        "OUTBOX_BATCH_SIZE",
        Integer.toString(BATCH),
        "OUTBOX_MAX_BATCH_SIZE",
        Integer.toString(BATCH));
  }

  private OutboxPoller poller(PollerConfig config, MessagePublisher publisher) {
    JsonLogger log =
        new JsonLogger(
            "pipeline", OutboxPoller.class, JsonLogger.Level.DEBUG, bed.out(), bed.clock);
    return PollerWiring.poller(
        config,
        bed.store(config),
        publisher,
        bed.clock,
        new SplittableRandom(3),
        log,
        new EmfMetrics("Test", "pipeline", bed.out(), bed.clock));
  }

  /**
   * Accepts every message the gate lets through at once and counts it per event id: the publishing
   * a broker would do, without a broker, so that the database is what is tested.
   */
  static final class Counting implements MessagePublisher {
    final Map<UUID, AtomicInteger> published = new ConcurrentHashMap<>();

    @Override
    public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
      List<Delivery> deliveries = new ArrayList<>(messages.size());
      for (OutboundMessage m : messages) {
        Delivery.Refusal refusal = gate.refusal(m.destination());
        if (refusal != null) {
          deliveries.add(new Delivery.NotAttempted(m.id(), refusal.why(), refusal.reason()));
        } else {
          published.computeIfAbsent(m.id(), id -> new AtomicInteger()).incrementAndGet();
          deliveries.add(new Delivery.Sent(m.id()));
        }
      }
      return deliveries;
    }
  }
}
