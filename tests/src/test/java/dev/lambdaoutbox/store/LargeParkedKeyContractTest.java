package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.StatementLog;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An aggregate of many PENDING events parked behind its dead-lettered head and released, by discard
 * and by replay, against a real database: every statement of parking, releasing and what the poller
 * and the reprocessor read meanwhile touches a bounded number of rows, well inside the statement
 * timeout, and the aggregate's events then publish in seq order.
 *
 * <p>By default the aggregate has 30,000 events, held back in chunks of 1,000: past every count's
 * cap (10,000 plus one), each test in seconds. The system property {@code
 * outbox.largeParkedKey.events} sets another size; from 1,000,000 up the chunk is {@code
 * OUTBOX_PARKING_CHUNK_SIZE}'s default, 5,000. The million-event shape docs/ordering.md reports
 * runs with:
 *
 * <pre>
 * ./mvnw -B -pl tests -am verify -Dtest='*LargeParkedKeyTest' \
 *     -Doutbox.largeParkedKey.events=1000000 -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
abstract class LargeParkedKeyContractTest extends StoreTestBase {
  /** The system property that sets the big aggregate's size. */
  static final String EVENTS_PROPERTY = "outbox.largeParkedKey.events";

  static final int DEFAULT_EVENTS = 30_000;

  static final int DEFAULT_CHUNK = 1_000;

  /** The events of the big aggregate ({@code o-0}), loaded set-based. */
  static final int EVENTS = Integer.getInteger(EVENTS_PROPERTY, DEFAULT_EVENTS);

  /**
   * The most a statement may take here: the default statement timeout ({@code
   * OUTBOX_DB_STATEMENT_TIMEOUT_MS}), which the JDBC sessions have set anyway. The rows each
   * statement touches are the bound that does not depend on the machine's load.
   */
  static final long STATEMENT_MILLIS = 10_000;

  /**
   * The most rows a completion holds back behind a head: {@value #DEFAULT_CHUNK}, or from a million
   * events up the default of {@code OUTBOX_PARKING_CHUNK_SIZE}.
   */
  static final int CHUNK = EVENTS >= 1_000_000 ? 5_000 : DEFAULT_CHUNK;

  private static final AuditInfo AUDIT = new AuditInfo("req-1", "operator", "fixed the consumer");

  @AfterEach
  void truncate() {
    // A DELETE of the aggregate's rows could outlast the test; the next test starts from an empty
    // table.
    rows.execute("TRUNCATE TABLE " + tables.messages());
  }

  OutboxStore store(SqlExecutor executor) {
    return OutboxStore.builder(executor)
        .tables(tables)
        .ordering(Ordering.AGGREGATE)
        .parkingChunkSize(CHUNK)
        .build();
  }

  DeadLetterStore deadLetters(SqlExecutor executor) {
    return DeadLetterStore.builder(executor)
        .tables(tables)
        .clock(Clock.fixed(T0.plusSeconds(3600), ZoneOffset.UTC))
        .build();
  }

  @Test
  void aLargeAggregate_parksAndIsReleasedByDiscard_inBoundedStatements_thenPublishesInOrder()
      throws Exception {
    List<UUID> first = parkedAggregate(EVENTS);
    StatementLog log = new StatementLog(newExecutor());

    DeadLetterActionResult result = deadLetters(log).discard(List.of(first.get(0)), false, AUDIT);

    assertThat(result.released()).extracting(ParkedKey::aggregateId).containsExactly("o-0");
    assertBounded("release by discard", log, 2);
    assertThat(publishedNext(5)).containsExactlyElementsOf(first.subList(1, 6));
  }

  @Test
  void aLargeAggregate_isReleasedByReplay_inBoundedStatements_headFirst() throws Exception {
    List<UUID> first = parkedAggregate(EVENTS);
    StatementLog log = new StatementLog(newExecutor());

    DeadLetterActionResult result =
        deadLetters(log).replay(List.of(first.get(0)), null, false, AUDIT);

    assertThat(result.applied()).containsExactly(first.get(0));
    assertThat(result.released()).extracting(ParkedKey::aggregateId).containsExactly("o-0");
    assertBounded("release by replay", log, 2);
    assertThat(publishedNext(5)).containsExactlyElementsOf(first.subList(0, 5));
  }

  /**
   * A head that backs off holds back at most a chunk of the rows behind it, the first in seq order:
   * a completion updates a bounded number of rows whatever the aggregate's size. The rows left
   * where they were are due before the head, and none of them is claimed ahead of it.
   */
  @Test
  void aRetriedHead_holdsBackAChunkBehindIt_andNoRowLeftBehindOvertakesIt() throws Exception {
    load(EVENTS);
    List<UUID> first = firstIds(2);
    assertThat(store(newExecutor()).claim("p1", 10, T0.plusSeconds(2), LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(first.get(0));
    StatementLog log = new StatementLog(newExecutor());
    Instant retryAt = T0.plus(Duration.ofDays(2));

    store(log)
        .complete(
            "p1",
            List.of(new Retry(first.get(0), "Throttling", "slow down", retryAt)),
            T0.plusSeconds(2));

    // MySQL locks the rows behind the head with a SELECT, then moves them by primary key.
    int held = CHUNK;
    assertBounded("holding back behind a retried head", log, held, CHUNK);
    assertThat(rows.count(tables.messages(), "next_attempt_at > TIMESTAMP '2026-03-02 10:00:00'"))
        .as("the head and the rows held back behind it, due at the retry")
        .isEqualTo(held + 1L);
    OutboxStore store = store(newExecutor());
    assertThat(store.claim("p2", 10, T0.plusSeconds(3), LEASE).isEmpty())
        .as("the rows behind the waiting head, held back or not")
        .isTrue();
    assertThat(store.claim("p2", 10, retryAt, LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(first.get(0));
    store.complete("p2", List.of(new Published(first.get(0))), retryAt);
    assertThat(store.claim("p2", 10, retryAt.plusSeconds(1), LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(first.get(1));
  }

  /**
   * A head that waits for its time (as one written with a delay: next_attempt_at and not_before a
   * day ahead) holds its aggregate only: a claim meanwhile takes another aggregate's event in
   * statements that read a bounded number of rows whatever the waiting aggregate's size, as the
   * walk visits each aggregate's head once; from its time on the aggregate goes in seq order.
   */
  @Test
  void aHeadWaitingForItsTime_holdsOnlyItsAggregate_inBoundedStatements() throws Exception {
    load(EVENTS);
    List<UUID> first = firstIds(2);
    Instant dueAt = T0.plus(Duration.ofDays(1));
    rows.execute(
        "UPDATE "
            + tables.messages()
            + " SET next_attempt_at = TIMESTAMP '2026-03-02 10:00:00',"
            + " not_before = TIMESTAMP '2026-03-02 10:00:00' WHERE id = '"
            + first.get(0)
            + "'");
    UUID quiet = append(T0.plusSeconds(1), event("z-quiet")).get(0);
    StatementLog log = new StatementLog(newExecutor());

    assertThat(store(log).claim("p1", 10, T0.plusSeconds(2), LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(quiet);
    assertThat(store(log).backlog(T0.plusSeconds(2)).oldestUnpublishedAge())
        .as("the events behind the waiting head are ready, held by their order: they count")
        .isGreaterThan(Duration.ofSeconds(1));
    assertBounded("claims beside a head waiting for its time", log, CHUNK);

    OutboxStore store = store(newExecutor());
    store.complete("p1", List.of(new Published(quiet)), T0.plusSeconds(2));
    assertThat(store.claim("p2", 10, dueAt.minusSeconds(1), LEASE).isEmpty()).isTrue();
    assertThat(store.claim("p2", 10, dueAt, LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(first.get(0));
    store.complete("p2", List.of(new Published(first.get(0))), dueAt);
    assertThat(store.claim("p2", 10, dueAt.plusSeconds(1), LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(first.get(1));
  }

  /**
   * {@code events} PENDING events of {@code o-0}, due from T0, and one of a quiet aggregate; the
   * big aggregate's head dead-lettered by a claim's completion, which parks it: every statement of
   * it, and of the reads the poller and the reprocessor make while the aggregate is parked, is
   * bounded, the quiet aggregate flows, and the parked one's events are not touched. Returns the
   * big aggregate's first ids, in seq order.
   */
  List<UUID> parkedAggregate(int events) throws Exception {
    load(events);
    UUID quiet = append(T0.plusSeconds(1), event("z-quiet")).get(0);
    List<UUID> first = firstIds(10);
    StatementLog log = new StatementLog(newExecutor());
    OutboxStore store = store(log);

    Claim claim = store.claim("p1", 10, T0.plusSeconds(2), LEASE);
    assertThat(claim.messages())
        .extracting(OutboxMessage::id)
        .containsExactlyInAnyOrder(first.get(0), quiet);
    CompletionReport report =
        store.complete(
            "p1",
            List.of(
                new DeadLetter(first.get(0), "InvalidParameter", "refused"), new Published(quiet)),
            T0.plusSeconds(2));

    assertThat(report.parked())
        .containsExactly(
            Map.entry(
                first.get(0),
                Math.min(
                    events - 1, dev.lambdaoutbox.store.model.deadletter.DeadLetter.COUNT_CAP + 1)));
    UUID later = append(T0.plusSeconds(3), event("z-quiet")).get(0);
    assertThat(store.claim("p2", 10, T0.plusSeconds(4), LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(later);
    assertThat(store.countDue(T0.plusSeconds(4), 100)).isZero();
    Backlog backlog = store.backlog(T0.plusSeconds(4));
    assertThat(backlog.parkedKeys()).isEqualTo(1);
    assertThat(backlog.parkedEvents()).isEqualTo(Backlog.PARKED_COUNT_CAP + 1L);
    assertThat(deadLetters(log).parkedKeys(10).keys())
        .singleElement()
        .satisfies(
            k ->
                assertThat(k.waitingEvents())
                    .isEqualTo(dev.lambdaoutbox.store.model.deadletter.DeadLetter.COUNT_CAP + 1L));
    assertThat(rows.message(first.get(1)).get("last_error_code")).isNull();
    assertBounded("parking and the reads while parked", log, 10);
    store.complete("p2", List.of(new Published(later)), T0.plusSeconds(4));
    return first;
  }

  /** {@code events} PENDING events of {@code o-0}, due over a second from T0, analyzed. */
  void load(int events) throws Exception {
    try (Connection c = database().open()) {
      HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
      loader.pendingOverKeys(events, 1, T0);
      loader.analyze();
    }
  }

  /**
   * Every statement logged took less than {@link #STATEMENT_MILLIS} and updated at most {@code
   * maxUpdated} rows; none returned more than a capped count's worth. Prints what {@code what} ran:
   * statements, the most rows one updated and read, the longest, the sum of their times.
   */
  static void assertBounded(String what, StatementLog log, int maxUpdated) {
    assertBounded(what, log, maxUpdated, 100);
  }

  /** As {@link #assertBounded(String, StatementLog, int)}, none returning over {@code maxRead}. */
  static void assertBounded(String what, StatementLog log, int maxUpdated, int maxRead) {
    List<StatementLog.Statement> statements = log.statements();
    System.out.printf(
        "%s, %,d events: %d statements, at most %d rows updated and %d read by one, the longest"
            + " %d ms, %d ms in all%n",
        what,
        EVENTS,
        statements.size(),
        statements.stream()
            .filter(StatementLog.Statement::update)
            .mapToInt(st -> st.rows())
            .max()
            .orElse(0),
        statements.stream().filter(st -> !st.update()).mapToInt(st -> st.rows()).max().orElse(0),
        statements.stream().mapToLong(StatementLog.Statement::millis).max().orElse(0),
        statements.stream().mapToLong(StatementLog.Statement::millis).sum());
    assertThat(statements).isNotEmpty();
    for (StatementLog.Statement st : statements) {
      assertThat(st.millis()).as("time of %s", st.sql()).isLessThan(STATEMENT_MILLIS);
      if (st.update()) {
        assertThat(st.rows()).as("rows updated by %s", st.sql()).isLessThanOrEqualTo(maxUpdated);
      } else {
        assertThat(st.rows()).as("rows read by %s", st.sql()).isLessThanOrEqualTo(maxRead);
      }
    }
  }

  /** Claims, one row each round, and publishes the next {@code n} events; returns their ids. */
  List<UUID> publishedNext(int n) {
    OutboxStore store = store(newExecutor());
    List<UUID> published = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Instant now = T0.plusSeconds(3601 + i);
      Claim claim = store.claim("p3", 10, now, LEASE);
      assertThat(claim.messages()).as("round %s", i).hasSize(1);
      UUID id = claim.messages().get(0).id();
      published.add(id);
      store.complete("p3", List.of(new Published(id)), now);
    }
    return published;
  }

  /** The first {@code n} ids of {@code o-0}, in seq order. */
  List<UUID> firstIds(int n) throws Exception {
    List<UUID> ids = new ArrayList<>();
    String sql =
        "SELECT id FROM " + tables.messages() + " WHERE aggregate_id = 'o-0' ORDER BY seq LIMIT ?";
    try (Connection c = database().open();
        PreparedStatement st = c.prepareStatement(sql)) {
      st.setInt(1, n);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          ids.add(UUID.fromString(rs.getString(1)));
        }
      }
    }
    return ids;
  }

  static OutboxEvent event(String aggregateId) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(aggregateId)
        .eventType("order.changed")
        .payload("{\"orderId\":\"" + aggregateId + "\"}")
        .build();
  }
}
