package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.Completion.Result;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Defer;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.testing.PoisonRows;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ordered store ({@link Ordering#AGGREGATE}) against a real database: one event per aggregate
 * in flight, a failing head holding up only its aggregate, a dead-lettered head parking it (an
 * unreadable one too), and the reprocessor releasing it. Each subclass names its database and the
 * executor the store runs on (JDBC, the Data API, JDBC with the Data API's result budget).
 */
abstract class OrderedStoreContractTest extends StoreTestBase {

  @Override
  OutboxStore store() {
    return OutboxStore.builder(newExecutor()).tables(tables).ordering(Ordering.AGGREGATE).build();
  }

  DeadLetterStore deadLetters() {
    return DeadLetterStore.builder(newExecutor())
        .tables(tables)
        .clock(Clock.fixed(T0.plusSeconds(3600), ZoneOffset.UTC))
        .build();
  }

  /** Appends one event of {@code aggregateId} in its own transaction, created at {@code at}. */
  UUID append(Instant at, String aggregateId) {
    return append(
            at,
            OutboxEvent.builder()
                .aggregateType("order")
                .aggregateId(aggregateId)
                .eventType("order.changed")
                .payload("{\"orderId\":\"" + aggregateId + "\"}")
                .build())
        .get(0);
  }

  static List<UUID> ids(Claim claim) {
    assertThat(claim.unreadable()).as("unreadable rows").isEmpty();
    return claim.messages().stream().map(OutboxMessage::id).toList();
  }

  private static final AuditInfo AUDIT = new AuditInfo("req-1", "operator", "fixed the consumer");

  /** A payload that is not JSON: unreadable in every dialect. */
  static final PoisonRows.Kind PAYLOAD_NOT_JSON = PoisonRows.named("payload-not-json");

  // ---- one in flight per aggregate

  @Test
  void claim_takesOnlyTheOldestEventOfEachAggregate_andNothingBehindALeasedOne() {
    UUID a1 = append(T0, "a");
    UUID b1 = append(T0.plusMillis(1), "b");
    append(T0.plusMillis(2), "a");
    append(T0.plusMillis(3), "b");
    append(T0.plusMillis(4), "a");

    assertThat(ids(store().claim("p1", 10, T0.plusSeconds(1), LEASE))).containsExactly(a1, b1);
    // The heads are leased: the events behind them wait, for every other poller too.
    assertThat(store().claim("p2", 10, T0.plusSeconds(2), LEASE).isEmpty()).isTrue();
  }

  @Test
  void claim_afterTheHeadIsPublished_takesTheNextEventOfItsAggregate() {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    OutboxStore store = store();

    store.claim("p1", 10, T0.plusSeconds(1), LEASE);
    store.complete("p1", List.of(new Published(a1)), T0.plusSeconds(1));

    assertThat(ids(store.claim("p2", 10, T0.plusSeconds(2), LEASE))).containsExactly(a2);
  }

  /**
   * A head another transaction holds locked is skipped as the heads are locked; the claim then
   * walks on to the next aggregate, so it takes as many heads as are free.
   */
  @Test
  void aClaim_whoseHeadIsLockedElsewhere_walksOnToTheNextAggregate() throws Exception {
    append(T0, "a");
    UUID b = append(T0.plusMillis(1), "b");
    UUID c = append(T0.plusMillis(2), "c");
    try (Connection other = database().open()) {
      other.setAutoCommit(false);
      lockEvent(other, "a", 1);

      assertThat(ids(store().claim("p1", 2, T0.plusSeconds(1), LEASE))).containsExactly(b, c);
      other.rollback();
    }
  }

  /**
   * A head written to wait for its time holds its aggregate: the events written after it, due at
   * once, wait behind it, and other aggregates flow. From its time on, the aggregate goes in order.
   */
  @Test
  void aHeadWaitingForItsTime_holdsOnlyItsAggregate_untilItsTime() {
    UUID a1 =
        append(
                T0,
                OutboxEvent.builder()
                    .aggregateType("order")
                    .aggregateId("a")
                    .eventType("order.reminder")
                    .payload("{\"orderId\":\"a\"}")
                    .delay(Duration.ofSeconds(30))
                    .build())
            .get(0);
    UUID a2 = append(T0.plusMillis(1), "a");
    UUID b1 = append(T0.plusMillis(2), "b");
    UUID b2 = append(T0.plusMillis(3), "b");
    OutboxStore store = store();

    assertThat(ids(store.claim("p1", 10, T0.plusSeconds(1), LEASE))).containsExactly(b1);
    store.complete("p1", List.of(new Published(b1)), T0.plusSeconds(1));
    assertThat(ids(store.claim("p1", 10, T0.plusSeconds(2), LEASE))).containsExactly(b2);
    store.complete("p1", List.of(new Published(b2)), T0.plusSeconds(2));
    // A short claim: its window meets a2, due before its head, and holds it back behind a1.
    assertThat(store.claim("p1", 1, T0.plusSeconds(29), LEASE).isEmpty()).isTrue();
    assertThat(store.countDue(T0.plusSeconds(29), 10)).isZero();

    assertThat(ids(store.claim("p1", 10, T0.plusSeconds(31), LEASE))).containsExactly(a1);
    store.complete("p1", List.of(new Published(a1)), T0.plusSeconds(31));
    assertThat(ids(store.claim("p1", 10, T0.plusSeconds(32), LEASE))).containsExactly(a2);
  }

  @Test
  void aFailingHead_holdsUpOnlyItsAggregate_untilItsRetryIsDue() {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    UUID b1 = append(T0.plusMillis(2), "b");
    UUID b2 = append(T0.plusMillis(3), "b");
    OutboxStore store = store();
    store.claim("p1", 10, T0.plusSeconds(1), LEASE);
    store.complete(
        "p1",
        List.of(new Retry(a1, "Throttled", "slow down", T0.plusSeconds(60)), new Published(b1)),
        T0.plusSeconds(1));

    // Backing off, a1 keeps a2 waiting, due no earlier than a1; b flows.
    assertThat(TestRows.instant(rows.message(a2), "next_attempt_at")).isEqualTo(T0.plusSeconds(60));
    assertThat(ids(store.claim("p2", 10, T0.plusSeconds(2), LEASE))).containsExactly(b2);
    store.complete("p2", List.of(new Published(b2)), T0.plusSeconds(2));
    // Once due, the head comes back, ahead of a2.
    assertThat(ids(store.claim("p3", 10, T0.plusSeconds(61), LEASE))).containsExactly(a1);
    store.complete("p3", List.of(new Published(a1)), T0.plusSeconds(61));
    assertThat(ids(store.claim("p4", 10, T0.plusSeconds(62), LEASE))).containsExactly(a2);
  }

  @Test
  void aDeferredHead_holdsUpItsAggregate_untilItsDestinationIsProbed() {
    UUID a1 = append(T0, "a");
    append(T0.plusMillis(1), "a");
    OutboxStore store = store();
    store.claim("p1", 10, T0.plusSeconds(1), LEASE);
    store.complete(
        "p1",
        List.of(new Defer(a1, "ServiceUnavailable", "down", T0.plusSeconds(30))),
        T0.plusSeconds(1));

    assertThat(store.claim("p2", 10, T0.plusSeconds(2), LEASE).isEmpty()).isTrue();
    assertThat(ids(store.claim("p2", 10, T0.plusSeconds(31), LEASE))).containsExactly(a1);
  }

  /**
   * Holding back the events behind a head that backs off decides where they wait, not whether: one
   * that another transaction holds locked right now (here an explicit transaction on a second
   * connection) is left where it is. The completion neither waits for that lock nor fails for it,
   * and the event still goes only after its head.
   */
  @Test
  void aRetriedHead_whoseSuccessorAnotherTransactionLocks_isRecordedAtOnce_andStillGoesFirst()
      throws Exception {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    UUID a3 = append(T0.plusMillis(2), "a");
    OutboxStore store = store();
    assertThat(ids(store.claim("p1", 10, T0.plusSeconds(1), LEASE))).containsExactly(a1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection other = database().open()) {
      other.setAutoCommit(false);
      lockEvent(other, "a", 2);
      Future<CompletionReport> retried =
          pool.submit(
              () ->
                  store.complete(
                      "p1",
                      List.of(new Retry(a1, "Throttled", "slow down", T0.plusSeconds(60))),
                      T0.plusSeconds(1)));

      CompletionReport report = retried.get(5, TimeUnit.SECONDS);
      assertThat(report.completions().get(0).result()).isEqualTo(Result.RETRIED);
      assertThat(TestRows.instant(rows.message(a3), "next_attempt_at"))
          .isEqualTo(T0.plusSeconds(60));
      other.commit();
    } finally {
      pool.shutdownNow();
    }
    // a2 stayed due where it was, yet waits behind its head like a3.
    assertThat(TestRows.instant(rows.message(a2), "next_attempt_at")).isBefore(T0.plusSeconds(1));
    assertThat(store.claim("p2", 10, T0.plusSeconds(2), LEASE).isEmpty()).isTrue();
    assertThat(ids(store.claim("p3", 10, T0.plusSeconds(61), LEASE))).containsExactly(a1);
    store.complete("p3", List.of(new Published(a1)), T0.plusSeconds(61));
    assertThat(ids(store.claim("p4", 10, T0.plusSeconds(62), LEASE))).containsExactly(a2);
  }

  /** The ids of the first {@code n} rows of the outbox, in the order written. */
  List<UUID> firstIds(Connection c, int n) throws Exception {
    List<UUID> ids = new ArrayList<>();
    String sql = "SELECT id FROM " + tables.messages() + " ORDER BY seq LIMIT " + n;
    try (PreparedStatement st = c.prepareStatement(sql);
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        ids.add(UUID.fromString(rs.getString(1)));
      }
    }
    return ids;
  }

  /**
   * Locks the {@code n}th event (from 1) of aggregate {@code aggregateId} in {@code c}'s
   * transaction.
   */
  private void lockEvent(Connection c, String aggregateId, int n) throws Exception {
    String sql =
        "SELECT seq FROM "
            + tables.messages()
            + " WHERE aggregate_id = ? ORDER BY seq LIMIT 1 OFFSET "
            + (n - 1);
    long seq;
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.setString(1, aggregateId);
      try (ResultSet rs = st.executeQuery()) {
        assertThat(rs.next()).as("event " + n + " of " + aggregateId).isTrue();
        seq = rs.getLong(1);
      }
    }
    String lock = "SELECT seq FROM " + tables.messages() + " WHERE seq = ? FOR UPDATE";
    try (PreparedStatement st = c.prepareStatement(lock)) {
      st.setLong(1, seq);
      try (ResultSet rs = st.executeQuery()) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  /**
   * Events written while their head waits are due before it: holding back moved only the events
   * there were when the head was deferred. Here they fill the whole window an ordered claim of two
   * looks at (eight rows), and every head sits behind them. Once the heads are due, claims still
   * take them, and each aggregate drains in order.
   */
  @Test
  void eventsWrittenWhileTheirHeadsWait_neverHideTheHeads_fromTheClaim() {
    OutboxStore store = store();
    List<UUID> heads = new ArrayList<>();
    for (int k = 0; k < 5; k++) {
      heads.add(append(T0.plusMillis(k), "k" + k));
    }
    assertThat(ids(store.claim("p1", 10, T0.plusSeconds(1), LEASE)))
        .containsExactlyElementsOf(heads);
    store.complete(
        "p1",
        heads.stream()
            .<DeliveryOutcome>map(
                h -> new Defer(h, "ServiceUnavailable", "down", T0.plusSeconds(30)))
            .toList(),
        T0.plusSeconds(1));
    Map<String, List<UUID>> written = new LinkedHashMap<>();
    for (int n = 0; n < 2; n++) {
      for (int k = 0; k < 5; k++) {
        written
            .computeIfAbsent("k" + k, key -> new ArrayList<>())
            .add(append(T0.plusSeconds(2), "k" + k));
      }
    }

    List<UUID> claimed = ids(store.claim("p2", 2, T0.plusSeconds(31), LEASE));

    assertThat(claimed).containsExactly(heads.get(0), heads.get(1));
    Map<String, List<UUID>> published = new LinkedHashMap<>();
    Instant now = T0.plusSeconds(31);
    for (int round = 0; round < 20 && !claimed.isEmpty(); round++) {
      for (UUID id : claimed) {
        String key = String.valueOf(rows.message(id).get("aggregate_id"));
        published.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
      }
      store.complete("p2", claimed.stream().<DeliveryOutcome>map(Published::new).toList(), now);
      now = now.plusSeconds(1);
      claimed = ids(store.claim("p2", 2, now, LEASE));
    }
    for (int k = 0; k < 5; k++) {
      List<UUID> expected = new ArrayList<>(List.of(heads.get(k)));
      expected.addAll(written.get("k" + k));
      assertThat(published.get("k" + k)).as("k" + k).containsExactlyElementsOf(expected);
    }
  }

  /**
   * A destination down for long: the events written for it meanwhile are due before its deferred
   * heads, and here there are more of them than an ordered claim looks at. Another aggregate's
   * event, written after them, is still claimed at once; it does not wait for the next probe.
   */
  @Test
  void eventsPilingUpBehindDeferredHeads_doNotHoldUpOtherAggregates() {
    OutboxStore store = store();
    List<UUID> heads = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      heads.add(append(T0.plusMillis(k), "down" + k));
    }
    store.claim("p1", 10, T0.plusSeconds(1), LEASE);
    store.complete(
        "p1",
        heads.stream()
            .<DeliveryOutcome>map(
                h -> new Defer(h, "ServiceUnavailable", "down", T0.plusSeconds(300)))
            .toList(),
        T0.plusSeconds(1));
    for (int n = 0; n < 4; n++) {
      for (int k = 0; k < 3; k++) {
        append(T0.plusSeconds(2), "down" + k);
      }
    }
    UUID other = append(T0.plusSeconds(3), "up");

    assertThat(ids(store.claim("p2", 2, T0.plusSeconds(10), LEASE))).containsExactly(other);
    store.complete("p2", List.of(new Published(other)), T0.plusSeconds(10));
    // The deferred heads still go first once their destination is probed.
    assertThat(ids(store.claim("p3", 10, T0.plusSeconds(301), LEASE)))
        .containsExactlyInAnyOrderElementsOf(heads);
  }

  @Test
  void aHeadWhoseLeaseRanOut_isClaimedAgain_beforeTheEventsBehindIt() {
    UUID a1 = append(T0, "a");
    append(T0.plusMillis(1), "a");
    OutboxStore store = store();
    store.claim("crashed", 10, T0.plusSeconds(1), LEASE);

    assertThat(store.claim("p2", 10, T0.plusSeconds(20), LEASE).isEmpty()).isTrue();
    assertThat(ids(store.claim("p2", 10, T0.plusSeconds(32), LEASE))).containsExactly(a1);
  }

  @Test
  void concurrentClaims_neverHoldTwoEventsOfOneAggregate_andPublishEachInOrder() throws Exception {
    int aggregates = 40;
    int eachOf = 15;
    Map<UUID, String> aggregateOf = new ConcurrentHashMap<>();
    Map<String, List<UUID>> written = new ConcurrentHashMap<>();
    for (int n = 0; n < eachOf; n++) {
      for (int a = 0; a < aggregates; a++) {
        String aggregate = "agg-" + a;
        UUID id = append(T0.plusMillis(n * aggregates + a), aggregate);
        aggregateOf.put(id, aggregate);
        written.computeIfAbsent(aggregate, k -> new ArrayList<>()).add(id);
      }
    }
    Drained drained = drainConcurrently(4, 7, aggregates * eachOf, 200);

    assertThat(drained.overlaps()).isZero();
    assertThat(drained.done()).isEqualTo(aggregates * eachOf);
    assertThat(drained.published()).isEqualTo(written);
  }

  /**
   * Four pollers race over a busy aggregate of 30 events beside 20 quiet ones of three, claims of
   * 4, with either walk: the aggregates reserved first (the default on MySQL and MariaDB), and the
   * cursor moved by the claim's own transaction (the default on PostgreSQL). No aggregate ever has
   * two events in flight, and every event is published once, each aggregate's in the order written.
   */
  @ParameterizedTest(name = "aggregates reserved first: {0}")
  @ValueSource(booleans = {true, false})
  void fourPollers_withEitherWalk_publishEveryEventOnce_inOrderPerAggregate(boolean reserve)
      throws Exception {
    hotKey(30);
    for (int n = 0; n < 3; n++) {
      for (int a = 0; a < 20; a++) {
        append(T0.plusMillis(n * 20 + a), "q-" + a);
      }
    }
    Map<String, List<UUID>> written = new LinkedHashMap<>();
    written.put("o-0", idsOf("o-0"));
    for (int a = 0; a < 20; a++) {
      written.put("q-" + a, idsOf("q-" + a));
    }
    int total = 30 + 20 * 3;
    Drained drained =
        drainConcurrently(
            () ->
                OutboxStore.builder(newExecutor())
                    .tables(tables)
                    .ordering(Ordering.AGGREGATE)
                    .reserveAggregates(reserve)
                    .build(),
            4,
            4,
            total,
            200);

    assertThat(drained.overlaps()).as("claims that found their aggregate in flight").isZero();
    assertThat(drained.done()).isEqualTo(total);
    assertThat(drained.published()).isEqualTo(written);
  }

  // ---- fairness: one busy aggregate does not starve the others

  /** What {@link #drainConcurrently} saw: events published per aggregate, in order. */
  record Drained(Map<String, List<UUID>> published, int overlaps, int done) {}

  /**
   * {@code pollers} stores claiming {@code claimSize} at a time on threads of their own, each
   * completing what it claimed as published, until {@code total} are published or a poller's claims
   * come back empty {@code idleLimit} times in a row; counts the claims that found an aggregate
   * already in flight.
   */
  Drained drainConcurrently(int pollers, int claimSize, int total, int idleLimit) throws Exception {
    return drainConcurrently(this::store, pollers, claimSize, total, idleLimit);
  }

  /** As {@link #drainConcurrently(int, int, int, int)}, each poller's store from {@code stores}. */
  Drained drainConcurrently(
      Supplier<OutboxStore> stores, int pollers, int claimSize, int total, int idleLimit)
      throws Exception {
    Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    Map<String, List<UUID>> published = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(pollers);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int p = 0; p < pollers; p++) {
        String owner = "p" + p;
        OutboxStore store = stores.get();
        running.add(
            pool.submit(
                () -> {
                  int idle = 0;
                  while (done.get() < total && idle < idleLimit) {
                    List<OutboxMessage> claimed =
                        store.claim(owner, claimSize, T0.plusSeconds(10), LEASE).messages();
                    idle = claimed.isEmpty() ? idle + 1 : 0;
                    for (OutboxMessage m : claimed) {
                      if (inFlight
                              .computeIfAbsent(m.aggregateId(), k -> new AtomicInteger())
                              .incrementAndGet()
                          > 1) {
                        overlaps.incrementAndGet();
                      }
                    }
                    List<DeliveryOutcome> outcomes = new ArrayList<>();
                    for (OutboxMessage m : claimed) {
                      published
                          .computeIfAbsent(
                              m.aggregateId(), k -> Collections.synchronizedList(new ArrayList<>()))
                          .add(m.id());
                      inFlight.get(m.aggregateId()).decrementAndGet();
                      outcomes.add(new Published(m.id()));
                    }
                    if (!outcomes.isEmpty()) {
                      store.complete(owner, outcomes, T0.plusSeconds(10));
                      done.addAndGet(outcomes.size());
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return new Drained(published, overlaps.get(), done.get());
  }

  /** The ids of {@code aggregateId}'s rows, in seq order (the order they must be published in). */
  List<UUID> idsOf(String aggregateId) throws Exception {
    List<UUID> ids = new ArrayList<>();
    String sql = "SELECT id FROM " + tables.messages() + " WHERE aggregate_id = ? ORDER BY seq";
    try (Connection c = database().open();
        PreparedStatement st = c.prepareStatement(sql)) {
      st.setString(1, aggregateId);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          ids.add(UUID.fromString(rs.getString(1)));
        }
      }
    }
    return ids;
  }

  /**
   * One aggregate ({@code o-0}) of a million PENDING events, 1,000 more over 100 aggregates, and
   * 50,000 SENT rows, analysed: what the plan tests read the ordered claim's plans against.
   */
  void aMillionEventsInOneKey(Connection c) throws Exception {
    HistoryLoader loader = new HistoryLoader(c, database().dialect(), tables);
    loader.sent(50_000, T0);
    loader.pendingOverKeys(1_000_000, 1, T0);
    loader.pendingOverKeys(1_000, 100, T0.plusSeconds(1));
    loader.analyze();
  }

  /** {@code count} PENDING events of the aggregate {@code o-0}, loaded set-based, due at T0. */
  void hotKey(int count) throws Exception {
    try (Connection c = database().open()) {
      new HistoryLoader(c, database().dialect(), tables).pendingOverKeys(count, 1, T0);
    }
  }

  /**
   * A burst of 1,000 events of one aggregate, and behind it one event each of two others (one
   * before it in key order, one after): the first claim takes the two quiet events with the busy
   * aggregate's head, and the busy aggregate then drains one event per claim, in order.
   */
  @Test
  void aHotKeyOfAThousandEvents_doesNotHoldUpTheQuietKeys_andDrainsInOrder() throws Exception {
    hotKey(1_000);
    UUID before = append(T0.plusSeconds(1), "a-quiet");
    UUID after = append(T0.plusSeconds(1), "z-quiet");
    List<UUID> hot = idsOf("o-0");
    OutboxStore store = store();

    List<UUID> first = ids(store.claim("p1", 10, T0.plusSeconds(2), LEASE));

    assertThat(first).containsExactlyInAnyOrder(hot.get(0), before, after);
    List<UUID> published = new ArrayList<>();
    Instant now = T0.plusSeconds(2);
    List<UUID> claimed = first;
    for (int round = 0; round < 1_100 && !claimed.isEmpty(); round++) {
      published.addAll(claimed);
      store.complete("p1", claimed.stream().<DeliveryOutcome>map(Published::new).toList(), now);
      claimed = ids(store.claim("p1", 10, now, LEASE));
    }
    assertThat(published).hasSize(1_002).contains(before, after);
    assertThat(published.stream().filter(id -> !id.equals(before) && !id.equals(after)))
        .as("the busy aggregate's events, in order")
        .containsExactlyElementsOf(hot);
  }

  /**
   * Claims take the aggregates in turn: with one row per claim, the next claim takes the next
   * aggregate's head, not the second event of the aggregate just published, and comes back round to
   * the first aggregate after the last.
   */
  @Test
  void claims_takeTheAggregatesInTurn() {
    Map<String, List<UUID>> written = new LinkedHashMap<>();
    for (int n = 0; n < 2; n++) {
      for (String key : List.of("k0", "k1", "k2")) {
        written.computeIfAbsent(key, k -> new ArrayList<>()).add(append(T0.plusMillis(n), key));
      }
    }
    OutboxStore store = store();
    List<UUID> published = new ArrayList<>();
    Instant now = T0.plusSeconds(1);
    for (int round = 0; round < 6; round++) {
      List<UUID> claimed = ids(store.claim("p1", 1, now, LEASE));
      assertThat(claimed).hasSize(1);
      published.addAll(claimed);
      store.complete("p1", List.of(new Published(claimed.get(0))), now);
    }

    assertThat(published)
        .containsExactly(
            written.get("k0").get(0),
            written.get("k1").get(0),
            written.get("k2").get(0),
            written.get("k0").get(1),
            written.get("k1").get(1),
            written.get("k2").get(1));
  }

  // ---- the cursor the pollers share

  /**
   * {@code keys} aggregates ({@code k00}, {@code k01}, ...) of {@code events} events each, written
   * a round at a time: the ids per aggregate, in order.
   */
  private Map<String, List<UUID>> aggregates(int keys, int events) {
    Map<String, List<UUID>> written = new LinkedHashMap<>();
    for (int n = 0; n < events; n++) {
      for (int k = 0; k < keys; k++) {
        String key = String.format("k%02d", k);
        written
            .computeIfAbsent(key, x -> new ArrayList<>())
            .add(append(T0.plusMillis(n * keys + k), key));
      }
    }
    return written;
  }

  /** Claims {@code limit} heads with {@code store} at {@code now} and publishes them. */
  private static List<UUID> claimAndPublish(
      OutboxStore store, String owner, int limit, Instant now) {
    List<UUID> claimed = ids(store.claim(owner, limit, now, LEASE));
    if (!claimed.isEmpty()) {
      store.complete(owner, claimed.stream().<DeliveryOutcome>map(Published::new).toList(), now);
    }
    return claimed;
  }

  /**
   * Three pollers claiming in turn share one walk of the aggregates: the six claims one round of
   * twelve aggregates takes, two heads each, reach every aggregate's first event, and none takes an
   * aggregate's second event before then (a poller walking from a place of its own would come back
   * to the aggregates another poller had just published).
   */
  @Test
  void pollersClaimingInTurn_reachEveryAggregatesFirstEvent_withinOneRound() {
    Map<String, List<UUID>> written = aggregates(12, 2);
    List<OutboxStore> pollers = List.of(store(), store(), store());
    List<UUID> claimed = new ArrayList<>();
    Instant now = T0.plusSeconds(1);
    for (int claim = 0; claim < 6; claim++) {
      claimed.addAll(claimAndPublish(pollers.get(claim % 3), "p" + claim % 3, 2, now));
    }

    assertThat(claimed)
        .containsExactlyElementsOf(written.values().stream().map(ids -> ids.get(0)).toList());
  }

  /**
   * A poller started cold (a new container: a new store) carries on from where another stopped, not
   * from the first key: it takes the next aggregates' first events, not the second events of the
   * aggregates the other just published.
   */
  @Test
  void aNewStore_carriesOnFromWhereAnotherStopped() {
    Map<String, List<UUID>> written = aggregates(6, 2);
    Instant now = T0.plusSeconds(1);
    assertThat(claimAndPublish(store(), "p1", 2, now))
        .containsExactly(written.get("k00").get(0), written.get("k01").get(0));

    assertThat(claimAndPublish(store(), "p2", 2, now))
        .containsExactly(written.get("k02").get(0), written.get("k03").get(0));
    assertThat(rows.count(tables.claimCursors(), "aggregate_id = 'k03'")).isEqualTo(1);
  }

  /**
   * The cursor's row deleted by hand stops no claim: the claim walks from the first key, and
   * records where it stopped in a row of its own, from which the next claim carries on.
   */
  @Test
  void aDeletedCursorRow_isRecreated_byAClaimWalkingFromTheFirstKey() {
    Map<String, List<UUID>> written = aggregates(3, 2);
    Instant now = T0.plusSeconds(1);
    assertThat(claimAndPublish(store(), "p1", 1, now)).containsExactly(written.get("k00").get(0));
    rows.execute("DELETE FROM " + tables.claimCursors());

    assertThat(claimAndPublish(store(), "p2", 1, now)).containsExactly(written.get("k00").get(1));
    assertThat(rows.count(tables.claimCursors(), "aggregate_id = 'k00'")).isEqualTo(1);
    assertThat(claimAndPublish(store(), "p3", 1, now)).containsExactly(written.get("k01").get(0));
    assertThat(rows.count(tables.claimCursors(), "aggregate_id = 'k01'")).isEqualTo(1);
  }

  /** A cursor holding half a key (one column cleared by hand) is read as the first key. */
  @Test
  void aCursorHoldingHalfAKey_walksFromTheFirstKey_andIsMovedWhole() {
    Map<String, List<UUID>> written = aggregates(3, 1);
    rows.execute("UPDATE " + tables.claimCursors() + " SET aggregate_type = 'order'");

    assertThat(claimAndPublish(store(), "p1", 1, T0.plusSeconds(1)))
        .containsExactly(written.get("k00").get(0));
    assertThat(rows.count(tables.claimCursors(), "aggregate_id = 'k00'")).isEqualTo(1);
  }

  /**
   * A claim that comes back where it started (here: every head is in flight) leaves the cursor as
   * it is: an idle outbox costs each claim the cursor's read, and no write.
   */
  @Test
  void aClaimThatComesBackWhereItStarted_leavesTheCursorAsItIs() {
    aggregates(2, 1);
    OutboxStore store = store();
    assertThat(ids(store.claim("p1", 1, T0.plusSeconds(1), LEASE))).hasSize(1);
    assertThat(ids(store.claim("p1", 1, T0.plusSeconds(2), LEASE))).hasSize(1);
    assertThat(rows.claimCursorMovedAt()).isEqualTo(T0.plusSeconds(2));

    assertThat(store.claim("p1", 1, T0.plusSeconds(3), LEASE).isEmpty()).isTrue();
    assertThat(rows.count(tables.claimCursors(), "aggregate_id = 'k01'")).isEqualTo(1);
    assertThat(rows.claimCursorMovedAt()).isEqualTo(T0.plusSeconds(2));
  }

  /**
   * Two pollers drain a hot aggregate of 300 events beside 20 quiet ones of three events each: no
   * aggregate ever has two events in flight, and each is published in order.
   */
  @Test
  void twoConcurrentPollers_withAHotKey_neverPublishAnAggregateOutOfOrder() throws Exception {
    hotKey(300);
    List<String> keys = new ArrayList<>(List.of("o-0"));
    for (int n = 0; n < 3; n++) {
      for (int a = 0; a < 20; a++) {
        append(T0.plusMillis(n * 20 + a), "q-" + a);
      }
    }
    Map<String, List<UUID>> written = new LinkedHashMap<>();
    for (int a = 0; a < 20; a++) {
      keys.add("q-" + a);
    }
    for (String key : keys) {
      written.put(key, idsOf(key));
    }
    int total = 300 + 60;
    Drained drained = drainConcurrently(2, 10, total, 500);

    assertThat(drained.overlaps()).isZero();
    assertThat(drained.done()).isEqualTo(total);
    assertThat(drained.published()).isEqualTo(written);
  }

  // ---- bounded by bytes

  /**
   * Heads too large to come back together: an ordered claim returns no more than one result may
   * hold, says it stopped at its budget while heads are left, and the next claims take the heads
   * left out first, each once.
   */
  @Test
  void anOrderedClaim_ofLargeHeads_takesNoMoreThanOneResultMayHold_andReachesEveryHead() {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String payload = "{\"blob\":\"" + "x".repeat(200 * 1024) + "\",\"n\":" + i + "}";
      written.addAll(append(T0.plusSeconds(i), event("big-" + i, payload)));
    }
    SqlExecutor executor = newExecutor();
    long budget = executor.inTransaction("read the result budget", SqlSession::maxResultBytes);
    OutboxStore store =
        OutboxStore.builder(executor).tables(tables).ordering(Ordering.AGGREGATE).build();

    List<UUID> claimed = new ArrayList<>();
    for (int round = 0; round < 10; round++) {
      Claim batch = store.claim("a", 10, T0.plusSeconds(10), LEASE);
      if (batch.isEmpty()) {
        break;
      }
      long bytes = batch.messages().stream().mapToLong(m -> m.payload().length()).sum();
      assertThat(batch.size() == 1 || bytes <= budget)
          .as("%d rows of %d bytes against a budget of %d", batch.size(), bytes, budget)
          .isTrue();
      claimed.addAll(ids(batch));
      assertThat(batch.stoppedAtBudget()).isEqualTo(claimed.size() < written.size());
    }

    assertThat(claimed).containsExactlyElementsOf(written);
  }

  /**
   * A head over every limit: the ordered claim never fails on it, returns it with its stored size
   * (cut to at most 256 KiB where one result is bounded), and takes the other aggregates' heads
   * beside it.
   */
  @Test
  void anOrderedClaim_ofAHeadOverEveryLimit_neverFails_saysItsStoredSize_andTakesTheOthers() {
    UUID huge = append(T0, "huge");
    UUID next = append(T0.plusSeconds(1), "next");
    String payload = writeHugePayload(tables.messages(), huge);
    SqlExecutor executor = newExecutor();
    long budget = executor.inTransaction("read the result budget", SqlSession::maxResultBytes);
    OutboxStore store =
        OutboxStore.builder(executor).tables(tables).ordering(Ordering.AGGREGATE).build();

    List<OutboxMessage> claimed = new ArrayList<>();
    for (int round = 0; round < 3 && claimed.size() < 2; round++) {
      claimed.addAll(store.claim("a", 10, T0.plusSeconds(1), LEASE).messages());
    }

    assertThat(claimed).extracting(OutboxMessage::id).containsExactly(huge, next);
    assertClaimedWithStoredSizes(claimed, payload, budget);
  }

  static OutboxEvent event(String aggregateId, String payload) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(aggregateId)
        .eventType("order.changed")
        .payload(payload)
        .build();
  }

  // ---- parking

  @Test
  void aDeadLetteredHead_parksItsAggregate_eventsWrittenLaterIncluded() {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    UUID a3 = append(T0.plusMillis(2), "a");
    UUID b1 = append(T0.plusMillis(3), "b");
    OutboxStore store = store();
    store.claim("p1", 10, T0.plusSeconds(1), LEASE);

    CompletionReport report =
        store.complete(
            "p1",
            List.of(new DeadLetter(a1, "InvalidParameter", "refused"), new Published(b1)),
            T0.plusSeconds(1));
    UUID a4 = append(T0.plusSeconds(5), "a");

    assertThat(report.completions().get(0).result()).isEqualTo(Result.DEAD_LETTERED);
    assertThat(report.parked()).containsExactly(Map.entry(a1, 2));
    // The events behind it are not touched: its parked-keys row alone holds them.
    Map<String, Object> parked = rows.message(a2);
    assertThat(parked.get("last_error_code")).isNull();
    assertThat(TestRows.instant(parked, "next_attempt_at")).isBefore(T0.plusSeconds(1));
    assertThat(rows.message(a3).get("last_error_code")).isNull();
    // Never published ahead of the dead letter, not even a day later, nor the one written after.
    assertThat(store.claim("p2", 10, T0.plusSeconds(86_400), LEASE).isEmpty()).isTrue();
    assertThat(rows.message(a4)).isNotNull();

    Backlog backlog = store.backlog(T0.plusSeconds(10));
    assertThat(backlog.parkedKeys()).isEqualTo(1);
    assertThat(backlog.parkedEvents()).isEqualTo(3);
    assertThat(deadLetters().parkedKeys(10).keys())
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.aggregateId()).isEqualTo("a");
              assertThat(k.deadLetterId()).isEqualTo(a1);
              assertThat(k.parkedEvents()).isEqualTo(2);
              assertThat(k.waitingEvents()).isEqualTo(3);
            });
  }

  @Test
  void replayingTheParkedHead_putsItBackAtTheHead_andReleasesItsAggregate() {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    append(T0.plusMillis(2), "a");
    OutboxStore store = store();
    store.claim("p1", 10, T0.plusSeconds(1), LEASE);
    store.complete("p1", List.of(new DeadLetter(a1, "InvalidParameter", "x")), T0.plusSeconds(1));
    UUID a4 = append(T0.plusSeconds(5), "a");
    DeadLetterStore dead = deadLetters();

    DeadLetterActionResult dry = dead.replay(List.of(a1), null, true, AUDIT);
    assertThat(dry.released()).extracting(ParkedKey::waitingEvents).containsExactly(3L);
    assertThat(store.claim("p2", 10, T0.plusSeconds(3600), LEASE).isEmpty()).isTrue();

    DeadLetterActionResult result = dead.replay(List.of(a1), null, false, AUDIT);

    assertThat(result.applied()).containsExactly(a1);
    assertThat(result.released()).extracting(ParkedKey::aggregateId).containsExactly("a");
    assertThat(rows.count(tables.parkedKeys(), "1 = 1")).isZero();
    assertThat(rows.message(a2).get("last_error_code")).isNull();
    List<UUID> order = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      List<OutboxMessage> claimed =
          store.claim("p3", 10, T0.plusSeconds(3601 + i), LEASE).messages();
      assertThat(claimed).hasSize(1);
      order.add(claimed.get(0).id());
      store.complete("p3", List.of(new Published(claimed.get(0).id())), T0.plusSeconds(3601));
    }
    assertThat(order.get(0)).isEqualTo(a1);
    assertThat(order.get(1)).isEqualTo(a2);
    assertThat(order.get(3)).isEqualTo(a4);
  }

  @Test
  void discardingTheParkedHead_releasesTheEventsBehindIt_inOrder() {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    UUID a3 = append(T0.plusMillis(2), "a");
    OutboxStore store = store();
    store.claim("p1", 10, T0.plusSeconds(1), LEASE);
    store.complete("p1", List.of(new DeadLetter(a1, "InvalidParameter", "x")), T0.plusSeconds(1));

    DeadLetterActionResult dry = deadLetters().discard(List.of(a1), true, AUDIT);
    assertThat(dry.released()).extracting(ParkedKey::waitingEvents).containsExactly(2L);
    DeadLetterActionResult result = deadLetters().discard(List.of(a1), false, AUDIT);

    assertThat(result.released()).extracting(ParkedKey::deadLetterId).containsExactly(a1);
    assertThat(ids(store.claim("p2", 10, T0.plusSeconds(3601), LEASE))).containsExactly(a2);
    store.complete("p2", List.of(new Published(a2)), T0.plusSeconds(3601));
    assertThat(ids(store.claim("p2", 10, T0.plusSeconds(3602), LEASE))).containsExactly(a3);
  }

  @Test
  void anUnreadableHead_isDeadLetteredByTheClaim_andParksItsAggregate() {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    UUID b1 = append(T0.plusMillis(2), "b");
    PoisonRows.poison(database(), tables, a1, PAYLOAD_NOT_JSON);
    OutboxStore store = store();

    Claim claim = store.claim("p1", 10, T0.plusSeconds(1), LEASE);

    assertThat(claim.messages()).extracting(OutboxMessage::id).containsExactly(b1);
    assertThat(claim.unreadable()).extracting(UnreadableRow::deadLetterId).containsExactly(a1);
    assertThat(claim.parked()).containsExactly(Map.entry(a1, 1));
    assertThat(rows.message(a2).get("last_error_code")).isNull();
    store.complete("p1", List.of(new Published(b1)), T0.plusSeconds(1));
    assertThat(store.claim("p2", 10, T0.plusSeconds(86_400), LEASE).isEmpty()).isTrue();
    assertThat(deadLetters().parkedKeys(10).keys())
        .singleElement()
        .satisfies(k -> assertThat(k.deadLetterId()).isEqualTo(a1));

    deadLetters().discard(List.of(a1), false, AUDIT);

    assertThat(ids(store.claim("p3", 10, T0.plusSeconds(3601), LEASE))).containsExactly(a2);
  }

  @Test
  void anUnreadableHeadWhoseIdIsNoUuid_parksItsAggregateBehindItsNewDeadLetterId() {
    PoisonRows.Kind noUuid =
        PoisonRows.kinds(database().dialect()).stream()
            .filter(k -> k.column().equals("id"))
            .findFirst()
            .orElse(null);
    assumeTrue(noUuid != null, "only MySQL and MariaDB store an id that is not a UUID");
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    PoisonRows.poison(database(), tables, a1, noUuid);
    OutboxStore store = store();

    Claim claim = store.claim("p1", 10, T0.plusSeconds(1), LEASE);

    assertThat(claim.messages()).isEmpty();
    assertThat(claim.unreadable()).hasSize(1);
    UUID deadLetterId = claim.unreadable().get(0).deadLetterId();
    assertThat(deadLetterId).isNotEqualTo(a1);
    assertThat(claim.parked()).containsExactly(Map.entry(deadLetterId, 1));
    assertThat(deadLetters().parkedKeys(10).keys())
        .singleElement()
        .satisfies(k -> assertThat(k.deadLetterId()).isEqualTo(deadLetterId));
    assertThat(store.claim("p2", 10, T0.plusSeconds(86_400), LEASE).isEmpty()).isTrue();

    deadLetters().discard(List.of(deadLetterId), false, AUDIT);

    assertThat(ids(store.claim("p3", 10, T0.plusSeconds(3601), LEASE))).containsExactly(a2);
  }

  // ---- counting the due rows, for scale-out

  @Test
  void countDue_countsTheRowsBehindALeasedHead_butNoneOfAParkedAggregate() {
    UUID a1 = append(T0, "a");
    append(T0.plusMillis(1), "a");
    append(T0.plusMillis(2), "a");
    UUID b1 = append(T0.plusMillis(3), "b");
    append(T0.plusMillis(4), "b");
    OutboxStore store = store();
    assertThat(ids(store.claim("p1", 10, T0.plusSeconds(1), LEASE))).containsExactly(a1, b1);

    // The heads are leased (not due); the rows behind them are work for the rounds to come.
    assertThat(store.countDue(T0.plusSeconds(2), 100)).isEqualTo(3);

    store.complete(
        "p1",
        List.of(new DeadLetter(a1, "InvalidParameter", "refused"), new Published(b1)),
        T0.plusSeconds(2));
    append(T0.plusSeconds(5), "a"); // written after "a" parked

    assertThat(store.countDue(T0.plusSeconds(10), 100)).isEqualTo(1);
    // Unordered, nothing is parked: a's three events are due, as is b's second.
    OutboxStore unordered = OutboxStore.builder(newExecutor()).tables(tables).build();
    assertThat(unordered.countDue(T0.plusSeconds(10), 100)).isEqualTo(4);

    deadLetters().discard(List.of(a1), false, AUDIT);
    assertThat(store.countDue(T0.plusSeconds(3601), 100)).isEqualTo(4);
  }

  @Test
  void unorderedStore_ignoresTheOrderingTables() {
    UUID a1 = append(T0, "a");
    UUID a2 = append(T0.plusMillis(1), "a");
    OutboxStore unordered = OutboxStore.builder(newExecutor()).tables(tables).build();

    assertThat(ids(unordered.claim("p1", 10, T0.plusSeconds(1), LEASE))).containsExactly(a1, a2);
    CompletionReport report =
        unordered.complete("p1", List.of(new DeadLetter(a1, "X", "y")), T0.plusSeconds(1));
    assertThat(report.parked()).isEmpty();
    assertThat(rows.count(tables.parkedKeys(), "1 = 1")).isZero();
    assertThat(rows.count(tables.claimCursors(), "aggregate_type IS NULL"))
        .as("the ordered claim's cursor, untouched")
        .isEqualTo(1);
  }
}
