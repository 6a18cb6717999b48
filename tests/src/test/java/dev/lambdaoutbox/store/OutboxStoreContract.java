package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.store.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.OutboxStore.Backlog;
import dev.lambdaoutbox.store.OutboxStore.CompletionCounts;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What every {@link OutboxStore} must do, against a real database, whatever carries its SQL. Rows
 * are written with the real {@link OutboxWriter} over JDBC, as an application writes them; each
 * subclass names the database and the executor the store runs on (JDBC to PostgreSQL or MariaDB,
 * the Data API to PostgreSQL). Times are fixed instants passed to the store, so leases run out
 * without sleeping. The tests are final: every backend runs the same ones.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxStoreContract {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final Duration LEASE = Duration.ofSeconds(30);

  OutboxTables tables;
  TestRows rows;
  private final List<AutoCloseable> resources = new ArrayList<>();

  /** The database the rows live in, reached over JDBC to write and inspect them. */
  abstract TestDatabase database();

  /**
   * A new executor for the store under test, as a new poller container would build one: its own
   * connection, or its own Data API client. What needs closing goes to {@link #closeAfterEach}.
   */
  abstract SqlExecutor newExecutor();

  /** SQL that renames a table (to make the dead-letter statement fail). */
  String renameTableSql(String from, String to) {
    return "ALTER TABLE " + from + " RENAME TO " + to;
  }

  @BeforeAll
  void createTables() {
    tables = database().createTables("store");
    rows = new TestRows(database(), tables);
  }

  @AfterAll
  void dropTables() {
    database().dropTables(tables);
  }

  @BeforeEach
  void clearTables() {
    rows.clear();
  }

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
    resources.clear();
  }

  /** Closes {@code resource} after the test. */
  <T extends AutoCloseable> T closeAfterEach(T resource) {
    resources.add(resource);
    return resource;
  }

  OutboxStore store() {
    return OutboxStore.builder(newExecutor()).tables(tables).build();
  }

  /** Appends events in one transaction of the application's, created (and due) at {@code at}. */
  List<UUID> append(Instant at, OutboxEvent... events) {
    return append(
        OutboxWriter.builder().tables(tables).clock(Clock.fixed(at, ZoneOffset.UTC)), events);
  }

  /**
   * Appends events in one transaction of the application's, with the writer {@code writer} builds.
   */
  List<UUID> append(OutboxWriter.Builder writerBuilder, OutboxEvent... events) {
    OutboxWriter writer = writerBuilder.build();
    try (Connection c = database().open()) {
      c.setAutoCommit(false);
      writer.appendAll(c, List.of(events));
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return List.of(events).stream().map(OutboxEvent::id).toList();
  }

  UUID append(Instant at) {
    return append(at, event("order-" + at.getEpochSecond())).get(0);
  }

  static OutboxEvent event(String aggregateId) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(aggregateId)
        .eventType("order.created")
        .payload("{\"orderId\":\"" + aggregateId + "\"}")
        .build();
  }

  static List<UUID> ids(List<OutboxMessage> messages) {
    return messages.stream().map(OutboxMessage::id).toList();
  }

  // ---- claim

  @Test
  final void claim_returnsDueRowsOldestFirst_uptoTheLimit() {
    UUID second = append(T0.plusSeconds(2));
    UUID first = append(T0);
    UUID third = append(T0.plusSeconds(3));
    UUID firstTwin = append(T0.plusSeconds(1));

    List<OutboxMessage> claimed = store().claim("a", 3, T0.plusSeconds(10), LEASE);

    assertThat(ids(claimed)).containsExactly(first, firstTwin, second);
    assertThat(ids(store().claim("b", 10, T0.plusSeconds(10), LEASE))).containsExactly(third);
  }

  @Test
  final void claim_skipsRowsNotYetDue() {
    UUID due = append(T0);
    append(T0.plusSeconds(100));

    assertThat(ids(store().claim("a", 10, T0.plusSeconds(50), LEASE))).containsExactly(due);
  }

  @Test
  final void claim_returnsTheEventsOfOneTransactionInTheOrderTheyWereMade() {
    OutboxEvent[] events = new OutboxEvent[300]; // made within a millisecond or two: same due time
    for (int i = 0; i < events.length; i++) {
      events[i] = event("order-" + i);
    }
    List<UUID> written = append(T0, events);

    assertThat(ids(store().claim("a", 300, T0.plusSeconds(1), LEASE)))
        .containsExactlyElementsOf(written);
  }

  @Test
  final void claim_returnsTheRowAsWritten() {
    String payload = "{ \"name\" : \"Zoë 🚀\",\n  \"n\": 1.50, \"nested\": {\"a\": [1, 2]} }";
    OutboxEvent event =
        OutboxEvent.builder()
            .aggregateType("reservation")
            .aggregateId("r-42")
            .eventType("reservation.created")
            .payload(payload)
            .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            .destination("arn:aws:sns:us-east-1:123456789012:reservations")
            .idempotencyKey("reservation-42-created")
            .occurredAt(T0.minusSeconds(5))
            .build();
    append(T0, event);

    OutboxMessage m = store().claim("a", 10, T0, LEASE).get(0);

    assertThat(m.id()).isEqualTo(event.id());
    assertThat(m.aggregateType()).isEqualTo("reservation");
    assertThat(m.aggregateId()).isEqualTo("r-42");
    assertThat(m.eventType()).isEqualTo("reservation.created");
    assertThat(m.payload()).isEqualTo(payload);
    assertThat(m.headers())
        .containsExactly(
            Map.entry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    assertThat(m.destination()).isEqualTo("arn:aws:sns:us-east-1:123456789012:reservations");
    assertThat(m.idempotencyKey()).isEqualTo("reservation-42-created");
    assertThat(m.occurredAt()).isEqualTo(T0.minusSeconds(5));
    assertThat(m.createdAt()).isEqualTo(T0);
    assertThat(m.retryCount()).isZero();
    assertThat(m.replayCount()).isZero();
    assertThat(m.firstFailedAt()).isNull();
    Map<String, Object> row = rows.message(event.id());
    assertThat(row.get("locked_by")).isEqualTo("a");
    assertThat(TestRows.instant(row, "locked_until")).isEqualTo(T0.plus(LEASE));
    assertThat(TestRows.instant(row, "next_attempt_at")).isEqualTo(T0.plus(LEASE));
  }

  @Test
  final void claim_whenRowsLeased_hidesThemFromOtherClaimsUntilTheLeaseEnds() {
    List<UUID> written = List.of(append(T0), append(T0.plusSeconds(1)));
    OutboxStore crashed = store();
    OutboxStore other = store();

    assertThat(ids(crashed.claim("crashed", 10, T0.plusSeconds(1), LEASE)))
        .containsExactlyElementsOf(written);
    assertThat(other.claim("other", 10, T0.plusSeconds(2), LEASE)).isEmpty();
    assertThat(other.claim("other", 10, T0.plusSeconds(30), LEASE)).isEmpty();

    // The owner crashed between claim and publish: after the lease the rows are claimed again.
    List<OutboxMessage> reclaimed = other.claim("other", 10, T0.plusSeconds(31), LEASE);
    assertThat(ids(reclaimed)).containsExactlyElementsOf(written);
    assertThat(rows.message(written.get(0)).get("locked_by")).isEqualTo("other");
  }

  @Test
  final void claim_leavesSentRowsAndDeadLettersAlone() {
    UUID id = append(T0);
    OutboxStore retaining = retainingStore();
    retaining.claim("a", 10, T0, LEASE);
    retaining.complete("a", List.of(new Published(id)), T0.plusSeconds(1));

    assertThat(store().claim("b", 10, T0.plus(Duration.ofDays(1)), LEASE)).isEmpty();
  }

  @Test
  final void claim_ofLargeRows_takesNoMoreThanOneResultMayHold_andReachesEveryRowInOrder() {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String payload = "{\"blob\":\"" + "x".repeat(200 * 1024) + "\",\"n\":" + i + "}";
      written.addAll(
          append(T0.plusSeconds(i), event("big-" + i).toBuilder().payload(payload).build()));
    }
    SqlExecutor executor = newExecutor();
    long budget = executor.inTransaction("read the result budget", SqlSession::maxResultBytes);
    OutboxStore store = OutboxStore.builder(executor).tables(tables).build();

    List<UUID> claimed = new ArrayList<>();
    for (int round = 0; round < 10; round++) {
      List<OutboxMessage> batch = store.claim("a", 10, T0.plusSeconds(10), LEASE);
      if (batch.isEmpty()) {
        break;
      }
      long bytes = batch.stream().mapToLong(m -> m.payload().length()).sum();
      assertThat(batch.size() == 1 || bytes <= budget)
          .as("%d rows of %d bytes against a budget of %d", batch.size(), bytes, budget)
          .isTrue();
      claimed.addAll(ids(batch));
    }

    assertThat(claimed).containsExactlyElementsOf(written);
  }

  @Test
  final void claim_ofAPayloadNoBrokerAccepts_returnsItStillTooLarge_andItsDeadLetterKeepsItWhole() {
    String payload = "{\"blob\":\"" + "y".repeat(300 * 1024) + "\"}";
    OutboxEvent event = event("huge").toBuilder().payload(payload).build();
    append(
        OutboxWriter.builder()
            .tables(tables)
            .maxPayloadBytes(1024 * 1024)
            .clock(Clock.fixed(T0, ZoneOffset.UTC)),
        event);
    OutboxStore store = store();

    OutboxMessage claimed = store.claim("a", 10, T0, LEASE).get(0);

    // Either the payload as written or, where one result is bounded, a prefix: both more than
    // the 256 KiB SNS and SQS accept, so the poller dead-letters the row as too large.
    assertThat(claimed.payload().length()).isGreaterThan(256 * 1024);
    assertThat(payload).startsWith(claimed.payload());
    store.complete("a", List.of(new DeadLetter(event.id(), "TooLarge", "300 KiB")), T0);
    assertThat(rows.deadLetter(event.id()).get("payload")).isEqualTo(payload);
  }

  // ---- complete: published

  @Test
  final void complete_published_deletesTheRows() {
    List<UUID> ids = List.of(append(T0), append(T0.plusSeconds(1)));
    OutboxStore store = store();
    store.claim("a", 10, T0.plusSeconds(1), LEASE);

    CompletionCounts counts =
        store.complete(
            "a", List.of(new Published(ids.get(0)), new Published(ids.get(1))), T0.plusSeconds(2));

    assertThat(counts).isEqualTo(new CompletionCounts(2, 0, 0, 0));
    assertThat(rows.count(tables.messages(), "1 = 1")).isZero();
  }

  @Test
  final void complete_published_withRetention_marksSent_andPurgeRemovesOnlyOldRowsInBatches() {
    OutboxStore store = retainingStore();
    List<UUID> old = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      old.add(append(T0.plusMillis(i)));
    }
    store.claim("a", 10, T0.plusSeconds(1), LEASE);
    store.complete("a", old.stream().map(id -> (DeliveryOutcome) new Published(id)).toList(), T0);
    List<UUID> recent = List.of(append(T0.plusSeconds(100)), append(T0.plusSeconds(101)));
    store.claim("a", 10, T0.plusSeconds(101), LEASE);
    store.complete(
        "a",
        recent.stream().map(id -> (DeliveryOutcome) new Published(id)).toList(),
        T0.plusSeconds(102));

    Map<String, Object> sent = rows.message(old.get(0));
    assertThat(sent.get("status")).isEqualTo("SENT");
    assertThat(TestRows.instant(sent, "sent_at")).isEqualTo(T0);
    assertThat(sent.get("locked_by")).isNull();

    Instant cutoff = T0.plusSeconds(50);
    assertThat(store.purgeSent(cutoff, 2)).isEqualTo(2);
    assertThat(store.purgeSent(cutoff, 2)).isEqualTo(2);
    assertThat(store.purgeSent(cutoff, 2)).isEqualTo(1);
    assertThat(store.purgeSent(cutoff, 2)).isZero();
    assertThat(rows.count(tables.messages(), "status = 'SENT'")).isEqualTo(2);
    assertThat(rows.message(recent.get(0))).isNotNull();
    assertThat(old).allSatisfy(id -> assertThat(rows.message(id)).isNull());
  }

  @Test
  final void purgeSent_leavesPendingRowsAlone() {
    UUID pending = append(T0);

    assertThat(retainingStore().purgeSent(T0.plus(Duration.ofDays(30)), 100)).isZero();
    assertThat(rows.message(pending)).isNotNull();
  }

  // ---- complete: retry

  @Test
  final void complete_retry_countsTheFailure_andKeepsTheFirstFailureTime() {
    UUID id = append(T0);
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);
    String longReason = "x".repeat(5000);

    CompletionCounts counts =
        store.complete(
            "a",
            List.of(new Retry(id, "Throttling", longReason, T0.plusSeconds(60))),
            T0.plusSeconds(1));

    assertThat(counts).isEqualTo(new CompletionCounts(0, 1, 0, 0));
    Map<String, Object> row = rows.message(id);
    assertThat(((Number) row.get("retry_count")).intValue()).isEqualTo(1);
    assertThat(TestRows.instant(row, "next_attempt_at")).isEqualTo(T0.plusSeconds(60));
    assertThat(row.get("last_error_code")).isEqualTo("Throttling");
    assertThat((String) row.get("last_error_reason")).hasSize(4000);
    assertThat(TestRows.instant(row, "first_failed_at")).isEqualTo(T0.plusSeconds(1));
    assertThat(row.get("locked_by")).isNull();
    assertThat(row.get("locked_until")).isNull();
    assertThat(row.get("status")).isEqualTo("PENDING");

    assertThat(store.claim("a", 10, T0.plusSeconds(59), LEASE)).isEmpty();
    OutboxMessage again = store.claim("b", 10, T0.plusSeconds(60), LEASE).get(0);
    assertThat(again.retryCount()).isEqualTo(1);
    assertThat(again.firstFailedAt()).isEqualTo(T0.plusSeconds(1));

    store.complete(
        "b",
        List.of(new Retry(id, "InternalError", "503", T0.plusSeconds(200))),
        T0.plusSeconds(61));
    row = rows.message(id);
    assertThat(((Number) row.get("retry_count")).intValue()).isEqualTo(2);
    assertThat(row.get("last_error_code")).isEqualTo("InternalError");
    assertThat(row.get("last_error_reason")).isEqualTo("503");
    assertThat(TestRows.instant(row, "first_failed_at")).isEqualTo(T0.plusSeconds(1));
    assertThat(TestRows.instant(row, "next_attempt_at")).isEqualTo(T0.plusSeconds(200));
  }

  // ---- complete: dead letter

  @Test
  final void complete_deadLetter_movesTheRowWithEverythingInOneTransaction() {
    String payload = "{\"amount\": \"12.30\",  \"note\": \"né \\u00e9 ☃\"}\n";
    OutboxEvent event =
        OutboxEvent.builder()
            .aggregateType("payment")
            .aggregateId("p-7")
            .eventType("payment.captured")
            .payload(payload)
            .header("traceparent", "00-aa-bb-01")
            .header("tenant", "acme")
            .destination("https://sqs.us-east-1.amazonaws.com/123456789012/payments")
            .idempotencyKey("payment-7")
            .occurredAt(T0.minusSeconds(1))
            .build();
    append(T0, event);
    UUID id = event.id();
    rows.execute("UPDATE " + tables.messages() + " SET replay_count = 2");
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);
    store.complete(
        "a",
        List.of(new Retry(id, "Throttling", "slow down", T0.plusSeconds(10))),
        T0.plusSeconds(1));
    store.claim("b", 10, T0.plusSeconds(10), LEASE);

    CompletionCounts counts =
        store.complete(
            "b",
            List.of(new DeadLetter(id, "InvalidParameter", "topic does not exist")),
            T0.plusSeconds(11));

    assertThat(counts).isEqualTo(new CompletionCounts(0, 0, 1, 0));
    assertThat(rows.message(id)).isNull();
    Map<String, Object> dead = rows.deadLetter(id);
    assertThat(dead).isNotNull();
    assertThat(dead.get("aggregate_type")).isEqualTo("payment");
    assertThat(dead.get("aggregate_id")).isEqualTo("p-7");
    assertThat(dead.get("event_type")).isEqualTo("payment.captured");
    assertThat(dead.get("payload")).isEqualTo(payload);
    assertThat((String) dead.get("headers")).contains("\"tenant\":\"acme\"", "00-aa-bb-01");
    assertThat(dead.get("destination"))
        .isEqualTo("https://sqs.us-east-1.amazonaws.com/123456789012/payments");
    assertThat(dead.get("idempotency_key")).isEqualTo("payment-7");
    assertThat(TestRows.instant(dead, "occurred_at")).isEqualTo(T0.minusSeconds(1));
    assertThat(TestRows.instant(dead, "created_at")).isEqualTo(T0);
    assertThat(((Number) dead.get("attempts")).intValue()).isEqualTo(2);
    assertThat(((Number) dead.get("replay_count")).intValue()).isEqualTo(2);
    assertThat(dead.get("error_code")).isEqualTo("InvalidParameter");
    assertThat(dead.get("error_reason")).isEqualTo("topic does not exist");
    assertThat(TestRows.instant(dead, "first_failed_at")).isEqualTo(T0.plusSeconds(1));
    assertThat(TestRows.instant(dead, "last_failed_at")).isEqualTo(T0.plusSeconds(11));
    assertThat(TestRows.instant(dead, "dead_at")).isEqualTo(T0.plusSeconds(11));
  }

  @Test
  final void complete_deadLetterOnFirstFailure_startsFirstFailureNow() {
    UUID id = append(T0);
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);

    store.complete("a", List.of(new DeadLetter(id, null, null)), T0.plusSeconds(3));

    Map<String, Object> dead = rows.deadLetter(id);
    assertThat(((Number) dead.get("attempts")).intValue()).isEqualTo(1);
    assertThat(dead.get("error_code")).isEqualTo("UNKNOWN");
    assertThat(TestRows.instant(dead, "first_failed_at")).isEqualTo(T0.plusSeconds(3));
  }

  @Test
  final void complete_whenOneStatementFails_rollsBackEveryOutcome() {
    UUID published = append(T0);
    UUID dying = append(T0.plusSeconds(1));
    OutboxStore store = store();
    store.claim("a", 10, T0.plusSeconds(1), LEASE);
    String hidden = tables.deadLetters() + "_x";
    rows.execute(renameTableSql(tables.deadLetters(), hidden));
    try {
      assertThatThrownBy(
              () ->
                  store.complete(
                      "a",
                      List.of(new Published(published), new DeadLetter(dying, "Bad", "bad")),
                      T0.plusSeconds(2)))
          .isInstanceOf(OutboxStoreException.class)
          .hasMessageContaining("could not record 2 outcomes in " + tables.messages());
    } finally {
      rows.execute(renameTableSql(hidden, tables.deadLetters()));
    }

    assertThat(rows.message(published)).isNotNull();
    assertThat(rows.message(dying)).isNotNull();
    // The store's connection is still usable afterwards.
    assertThat(store.complete("a", List.of(new Published(published)), T0.plusSeconds(3)))
        .isEqualTo(new CompletionCounts(1, 0, 0, 0));
  }

  // ---- leases taken over

  @Test
  final void complete_fromAnOwnerWhoseLeaseWasTaken_isSkippedAndCounted() {
    UUID retried = append(T0);
    UUID dead = append(T0.plusSeconds(1));
    UUID published = append(T0.plusSeconds(2));
    OutboxStore slow = store();
    OutboxStore fast = store();
    slow.claim("slow", 10, T0.plusSeconds(2), LEASE);
    List<OutboxMessage> taken = fast.claim("fast", 10, T0.plusSeconds(40), LEASE);
    assertThat(taken).hasSize(3);
    fast.complete("fast", List.of(new Published(published)), T0.plusSeconds(41));

    CompletionCounts counts =
        slow.complete(
            "slow",
            List.of(
                new Retry(retried, "Throttling", "late", T0.plusSeconds(100)),
                new DeadLetter(dead, "Bad", "late"),
                new Published(published)),
            T0.plusSeconds(42));

    assertThat(counts).isEqualTo(new CompletionCounts(0, 0, 0, 3));
    Map<String, Object> row = rows.message(retried);
    assertThat(row.get("locked_by")).isEqualTo("fast");
    assertThat(((Number) row.get("retry_count")).intValue()).isZero();
    assertThat(rows.message(dead)).isNotNull();
    assertThat(rows.deadLetter(dead)).isNull();
  }

  @Test
  final void complete_mixedOutcomes_areCountedByKind() {
    UUID a = append(T0);
    UUID b = append(T0.plusSeconds(1));
    UUID c = append(T0.plusSeconds(2));
    OutboxStore store = store();
    store.claim("o", 10, T0.plusSeconds(2), LEASE);

    CompletionCounts counts =
        store.complete(
            "o",
            List.of(
                new Published(a),
                new Retry(b, "Throttling", "later", T0.plusSeconds(60)),
                new DeadLetter(c, "Bad", "never")),
            T0.plusSeconds(3));

    assertThat(counts).isEqualTo(new CompletionCounts(1, 1, 1, 0));
    assertThat(rows.message(a)).isNull();
    assertThat(rows.message(b)).isNotNull();
    assertThat(rows.deadLetter(c)).isNotNull();
  }

  // ---- concurrency

  @Test
  final void claimAndComplete_fromFourPollersAtOnce_publishEveryRowExactlyOnce() throws Exception {
    int total = 20_000;
    List<UUID> written = new ArrayList<>(total);
    for (int batch = 0; batch < total / 1000; batch++) {
      OutboxEvent[] events = new OutboxEvent[1000];
      for (int i = 0; i < events.length; i++) {
        events[i] = event("o-" + batch + "-" + i);
      }
      written.addAll(append(T0.plusMillis(batch), events));
    }
    Set<UUID> published = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicates = new AtomicInteger();
    AtomicLong skipped = new AtomicLong();
    Instant now = T0.plusSeconds(60);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> pollers = new ArrayList<>();
      for (int p = 0; p < 4; p++) {
        String owner = "poller-" + p;
        OutboxStore store = store();
        pollers.add(
            pool.submit(
                () -> {
                  while (true) {
                    List<OutboxMessage> claimed = store.claim(owner, 250, now, LEASE);
                    if (claimed.isEmpty()) {
                      return null;
                    }
                    List<DeliveryOutcome> outcomes = new ArrayList<>(claimed.size());
                    for (OutboxMessage m : claimed) {
                      if (!published.add(m.id())) {
                        duplicates.incrementAndGet();
                      }
                      outcomes.add(new Published(m.id()));
                    }
                    skipped.addAndGet(store.complete(owner, outcomes, now).skippedLeaseLost());
                  }
                }));
      }
      for (Future<?> f : pollers) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(duplicates).hasValue(0);
    assertThat(skipped).hasValue(0);
    assertThat(published).hasSize(total).containsAll(written);
    assertThat(rows.count(tables.messages(), "1 = 1")).isZero();
  }

  // ---- backlog

  @Test
  final void backlog_reportsTheOldestDueRowAndTheDeadLetters() {
    OutboxStore store = store();
    assertThat(store.backlog(T0)).isEqualTo(new Backlog(Duration.ZERO, 0));

    UUID oldest = append(T0);
    append(T0.plusSeconds(5));
    UUID dying = append(T0.plusSeconds(6));
    append(T0.plusSeconds(500));
    store.claim("a", 10, T0.plusSeconds(6), LEASE);
    store.complete(
        "a",
        List.of(
            new Retry(oldest, "Throttling", "later", T0.plusSeconds(300)),
            new DeadLetter(dying, "Bad", "bad")),
        T0.plusSeconds(7));

    // At +65 s the row retried until +300 s is not due; the leased row (+5 s) is due again at +36
    // s.
    assertThat(store.backlog(T0.plusSeconds(65))).isEqualTo(new Backlog(Duration.ofSeconds(60), 1));
    assertThat(store.backlog(T0.plusSeconds(300)))
        .isEqualTo(new Backlog(Duration.ofSeconds(300), 1));
  }

  @Test
  void countDue_countsPendingDueRowsOnly_upToTheLimit() {
    OutboxStore store = store();
    assertThat(store.countDue(T0, 10)).isZero();

    append(T0);
    append(T0.plusSeconds(1));
    append(T0.plusSeconds(2));
    append(T0.plusSeconds(500)); // not due yet at +10 s
    store.claim("a", 1, T0.plusSeconds(3), LEASE); // leased until +33 s

    assertThat(store.countDue(T0.plusSeconds(10), 10)).isEqualTo(2);
    assertThat(store.countDue(T0.plusSeconds(10), 1)).isEqualTo(1);
    assertThat(store.countDue(T0.plusSeconds(40), 10)).isEqualTo(3);
    assertThat(store.countDue(T0.plusSeconds(600), 10)).isEqualTo(4);
  }

  // ---- helpers

  OutboxStore retainingStore() {
    return OutboxStore.builder(newExecutor()).tables(tables).retention(Duration.ofDays(7)).build();
  }
}
