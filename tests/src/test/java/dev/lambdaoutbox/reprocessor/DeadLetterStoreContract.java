package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.T0;
import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditDetails;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionException;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult.Skipped;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What every {@link DeadLetterStore} must do, run against each database and carrier (JDBC to
 * PostgreSQL or MariaDB, the Data API to PostgreSQL) by a small subclass. Dead letters are seeded
 * with plain SQL over JDBC, so these tests need no poller. The tests are final: every backend runs
 * the same ones.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DeadLetterStoreContract {
  static final Instant NOW = Instant.parse("2026-03-02T09:00:00.123456Z");
  static final String QUARANTINE = "arn:aws:sns:us-east-1:123456789012:orders-quarantine";
  static final AuditInfo OPERATOR = new AuditInfo("req-1", "alice@example.com", "topic fixed");

  private TestDatabase db;
  private DeadLetterTables rows;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private SqlExecutor executor;
  private DeadLetterStore store;

  /** The database the dead letters live in, reached over JDBC to seed and inspect them. */
  abstract TestDatabase database();

  /**
   * A new executor for the store under test, as a new reprocessor container would build one. What
   * needs closing goes to {@link #closeAfterEach}.
   */
  abstract SqlExecutor newExecutor();

  /** Closes {@code resource} after the test. */
  <T extends AutoCloseable> T closeAfterEach(T resource) {
    resources.add(resource);
    return resource;
  }

  @BeforeAll
  void createTables() {
    db = database();
    OutboxTables tables = db.createTables("dls");
    rows = new DeadLetterTables(db, tables);
  }

  @AfterAll
  void dropTables() {
    db.dropTables(rows.tables());
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM " + rows.tables().messages());
      st.execute("DELETE FROM " + rows.tables().deadLetters());
      st.execute("DELETE FROM " + rows.tables().deadLetterAudit());
    }
    executor = newExecutor();
    store = store(executor, 100);
  }

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
    resources.clear();
  }

  /** The tables' prefix, for subclasses that build their executor for them. */
  OutboxTables tables() {
    return rows.tables();
  }

  private DeadLetterStore store(SqlExecutor executor, int batchSize) {
    return DeadLetterStore.builder(executor)
        .tables(rows.tables())
        .clock(Clock.fixed(NOW, ZoneOffset.UTC))
        .batchSize(batchSize)
        .build();
  }

  @Test
  final void countsAndSummaries_stopJustPastTheCap_andSaySo() {
    List<DeadLetter> many = new ArrayList<>();
    for (int i = 0; i < DeadLetter.COUNT_CAP + 5; i++) {
      many.add(deadLetter().deadAt(T0.plusMillis(i)).build());
    }
    rows.seed(many.toArray(DeadLetter[]::new));

    DeadLetterSummary all = store.summarize(DeadLetterFilter.all());
    DeadLetterSummary newest =
        store.summarize(
            DeadLetterFilter.builder().deadFrom(T0.plusMillis(DeadLetter.COUNT_CAP)).build());

    assertThat(store.count()).isEqualTo(DeadLetter.COUNT_CAP + 1);
    assertThat(all.total()).isEqualTo(DeadLetter.COUNT_CAP + 1);
    assertThat(all.totalCapped()).isTrue();
    assertThat(all.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.oldestDeadAt()).isEqualTo(T0));
    assertThat(newest.total()).isEqualTo(5);
    assertThat(newest.totalCapped()).isFalse();
  }

  @Test
  final void list_ofADeadLetterOverEveryLimit_showsItsPreview_andItsWholeLength() {
    // 1.5 MiB of 4-byte characters: more than one Data API response holds; hand SQL can write it.
    String payload = "{\"blob\":\"" + "\uD83D\uDE00".repeat(3 * 128 * 1024) + "\"}";
    DeadLetter huge = deadLetter().payload(payload).build();
    DeadLetter small = deadLetter().deadAt(T0.plusSeconds(1)).build();
    rows.seed(huge, small);

    DeadLetterPage page = store.list(DeadLetterFilter.all(), null, 10, 1_000);

    assertThat(page.entries())
        .extracting(e -> e.deadLetter().id())
        .containsExactly(huge.id(), small.id());
    DeadLetterPage.Entry entry = page.entries().get(0);
    assertThat(entry.payloadLength()).isEqualTo(payload.codePointCount(0, payload.length()));
    assertThat(payload).startsWith(entry.deadLetter().payload());
    assertThat(
            entry.deadLetter().payload().codePointCount(0, entry.deadLetter().payload().length()))
        .isEqualTo(1_000);
  }

  @Test
  final void deadLettersOverEveryLimit_areReplayedAndDiscarded_theirPayloadsCopiedWholeInSql() {
    String payload = "{\"blob\":\"" + "\uD83D\uDE00".repeat(3 * 128 * 1024) + "\"}";
    DeadLetter replayed = deadLetter().payload(payload).build();
    DeadLetter discarded = deadLetter().deadAt(T0.plusSeconds(1)).payload(payload).build();
    rows.seed(replayed, discarded);

    DeadLetterActionResult replay = store.replay(List.of(replayed.id()), null, false, OPERATOR);
    DeadLetterActionResult discard = store.discard(List.of(discarded.id()), false, OPERATOR);

    assertThat(replay.applied()).containsExactly(replayed.id());
    assertThat(discard.applied()).containsExactly(discarded.id());
    assertThat(rows.deadIds()).isEmpty();
    assertThat(rows.outboxRows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.id()).isEqualTo(replayed.id());
              assertThat(r.payload()).isEqualTo(payload);
              assertThat(r.replayCount()).isEqualTo(replayed.replayCount() + 1);
              assertThat(r.destination()).isEqualTo(replayed.destination());
            });
    for (DeadLetter d : List.of(replayed, discarded)) {
      String action = d == replayed ? AuditEntry.REPLAY : AuditEntry.DISCARD;
      assertThat(AuditDetails.snapshot(rows.auditDetails(d.id(), action)))
          .as("the %s audit's snapshot", action)
          .isEqualTo(d);
    }
  }

  @Test
  final void list_returnsRowsOldestDeathFirst_withErrorAttemptsAndFailureTimes() {
    DeadLetter newer = deadLetter().deadAt(T0.plusSeconds(60)).build();
    DeadLetter older = deadLetter().deadAt(T0).attempts(3).error("SQS_ACCESS_DENIED", "no").build();
    rows.seed(newer, older);

    DeadLetterPage page = store.list(DeadLetterFilter.all(), null, 10, 1000);

    assertThat(page.entries()).extracting(e -> e.deadLetter()).containsExactly(older, newer);
    assertThat(page.nextCursor()).isEmpty();
  }

  @Test
  final void list_withCursor_visitsEveryRowExactlyOnce_evenWhenRowsShareADeathTime() {
    List<DeadLetter> seeded = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      seeded.add(deadLetter().deadAt(T0.plusSeconds(i / 3)).build());
    }
    rows.seed(seeded.toArray(DeadLetter[]::new));

    List<UUID> seen = new ArrayList<>();
    DeadLetterCursor cursor = null;
    int pages = 0;
    do {
      DeadLetterPage page = store.list(DeadLetterFilter.all(), cursor, 3, 100);
      page.entries().forEach(e -> seen.add(e.deadLetter().id()));
      cursor = page.next();
      pages++;
    } while (cursor != null);

    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyElementsOf(rows.deadIds());
  }

  @Test
  final void list_cursor_survivesEncodingAsAnOpaqueToken() {
    DeadLetterCursor cursor = new DeadLetterCursor(T0.plusNanos(123_000), UuidV7.generate());

    assertThat(DeadLetterCursor.decode(cursor.encode())).contains(cursor);
    assertThat(DeadLetterCursor.decode("not-a-cursor")).isEmpty();
  }

  @Test
  final void list_filtersByEventTypeAggregateErrorCodeAndDeathRange() {
    DeadLetter match =
        deadLetter()
            .eventType("OrderShipped")
            .aggregate("Order", "order-7")
            .error("SQS_QUEUE_MISSING", "gone")
            .deadAt(T0.plusSeconds(30))
            .build();
    rows.seed(
        match,
        deadLetter()
            .eventType("OrderPlaced")
            .aggregate("Order", "order-7")
            .error("SQS_QUEUE_MISSING", "gone")
            .deadAt(T0.plusSeconds(30))
            .build(),
        deadLetter()
            .eventType("OrderShipped")
            .aggregate("Order", "order-8")
            .error("SQS_QUEUE_MISSING", "gone")
            .deadAt(T0.plusSeconds(30))
            .build(),
        deadLetter()
            .eventType("OrderShipped")
            .aggregate("Order", "order-7")
            .error("SNS_NOT_FOUND", "x")
            .deadAt(T0.plusSeconds(30))
            .build(),
        deadLetter()
            .eventType("OrderShipped")
            .aggregate("Order", "order-7")
            .error("SQS_QUEUE_MISSING", "gone")
            .deadAt(T0.plusSeconds(90))
            .build());
    DeadLetterFilter filter =
        DeadLetterFilter.builder()
            .eventType("OrderShipped")
            .aggregateType("Order")
            .aggregateId("order-7")
            .errorCode("SQS_QUEUE_MISSING")
            .deadFrom(T0.plusSeconds(30))
            .deadTo(T0.plusSeconds(90))
            .build();

    DeadLetterPage page = store.list(filter, null, 50, 1000);

    assertThat(page.entries()).extracting(e -> e.deadLetter().id()).containsExactly(match.id());
  }

  @Test
  final void list_cutsPayloadsToThePreview_andReportsTheStoredLength() {
    String payload = "{\"note\":\"" + "é".repeat(300) + "\"}";
    rows.seed(deadLetter().payload(payload).build());

    DeadLetterPage.Entry entry = store.list(DeadLetterFilter.all(), null, 1, 20).entries().get(0);

    assertThat(entry.deadLetter().payload()).isEqualTo(payload.substring(0, 20));
    assertThat(entry.payloadLength()).isEqualTo(payload.length());
    assertThat(entry.payloadTruncated()).isTrue();
  }

  @Test
  final void summarize_groupsTheWholeFilteredSetByErrorCodeAndEventType() {
    for (int i = 0; i < 3; i++) {
      rows.seed(
          deadLetter()
              .eventType("OrderPlaced")
              .error("SNS_NOT_FOUND", "x")
              .deadAt(T0.plusSeconds(i))
              .build());
    }
    rows.seed(
        deadLetter().eventType("OrderShipped").error("SNS_NOT_FOUND", "x").build(),
        deadLetter().eventType("OrderPlaced").error("RETRIES_EXHAUSTED", "x").build(),
        deadLetter().eventType("Other").aggregate("Invoice", "i-1").build());

    DeadLetterSummary summary =
        store.summarize(DeadLetterFilter.builder().aggregateType("Order").build());

    assertThat(summary.total()).isEqualTo(5);
    assertThat(summary.groups())
        .extracting(g -> g.errorCode() + "/" + g.eventType() + "=" + g.count())
        .containsExactly(
            "SNS_NOT_FOUND/OrderPlaced=3",
            "RETRIES_EXHAUSTED/OrderPlaced=1",
            "SNS_NOT_FOUND/OrderShipped=1");
    assertThat(summary.groups().get(0).oldestDeadAt()).isEqualTo(T0);
    assertThat(summary.groups().get(0).newestDeadAt()).isEqualTo(T0.plusSeconds(2));
  }

  @Test
  final void replay_putsTheRowBackWithTheSameIdAndAFreshRetryState() {
    DeadLetter dead = deadLetter().replayCount(2).idempotencyKey("order-1001-placed").build();
    rows.seed(dead);

    DeadLetterActionResult result = store.replay(List.of(dead.id()), null, false, OPERATOR);

    assertThat(result.applied()).containsExactly(dead.id());
    assertThat(result.skipped()).isEmpty();
    assertThat(rows.deadIds()).isEmpty();
    assertThat(rows.outboxRows())
        .containsExactly(
            new OutboxRow(
                dead.id(),
                dead.aggregateType(),
                dead.aggregateId(),
                dead.eventType(),
                dead.payload(),
                dead.headers(),
                dead.destination(),
                "order-1001-placed",
                dead.occurredAt(),
                NOW,
                "PENDING",
                0,
                3,
                NOW,
                null,
                null,
                null,
                null,
                null));
  }

  @Test
  final void replay_withADestinationOverride_sendsTheRowThere_andTheAuditSaysSo() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);

    store.replay(List.of(dead.id()), QUARANTINE, false, OPERATOR);

    assertThat(rows.outboxRows()).extracting(OutboxRow::destination).containsExactly(QUARANTINE);
    AuditEntry audit = store.auditTrail(dead.id()).get(0);
    assertThat(audit.destinationOverride()).isEqualTo(QUARANTINE);
    assertThat(audit.snapshot().destination()).isEqualTo(dead.destination());
  }

  @Test
  final void replay_writesOneAuditRowPerRow_withRequesterReasonAndSnapshot() {
    DeadLetter a = deadLetter().build();
    DeadLetter b = deadLetter().build();
    rows.seed(a, b);

    store.replay(List.of(a.id(), b.id()), null, false, OPERATOR);

    for (DeadLetter row : List.of(a, b)) {
      assertThat(store.auditTrail(row.id()))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.action()).isEqualTo("REPLAY");
                assertThat(e.requestId()).isEqualTo("req-1");
                assertThat(e.requestedBy()).isEqualTo("alice@example.com");
                assertThat(e.reason()).isEqualTo("topic fixed");
                assertThat(e.createdAt()).isEqualTo(NOW);
                assertThat(e.snapshot()).isEqualTo(row);
              });
    }
  }

  @Test
  final void replay_ofTheSameIdsTwice_skipsTheSecondTime_andLeavesOneOutboxRowPerId() {
    DeadLetter a = deadLetter().build();
    DeadLetter b = deadLetter().build();
    rows.seed(a, b);

    store.replay(List.of(a.id(), b.id()), null, false, OPERATOR);
    DeadLetterActionResult second = store.replay(List.of(a.id(), b.id()), null, false, OPERATOR);

    assertThat(second.applied()).isEmpty();
    assertThat(second.skipped())
        .containsExactlyInAnyOrder(
            new Skipped(a.id(), SkipReason.ALREADY_IN_OUTBOX),
            new Skipped(b.id(), SkipReason.ALREADY_IN_OUTBOX));
    assertThat(rows.outboxIds()).containsExactlyInAnyOrder(a.id(), b.id());
    assertThat(rows.auditCount()).isEqualTo(2);
  }

  @Test
  final void replay_ofAnIdThatIsNeitherDeadNorInTheOutbox_isSkippedAsNotDead() {
    UUID unknown = UuidV7.generate();

    DeadLetterActionResult result = store.replay(List.of(unknown), null, false, OPERATOR);

    assertThat(result.skipped()).containsExactly(new Skipped(unknown, SkipReason.NOT_DEAD));
    assertThat(rows.auditCount()).isZero();
  }

  @Test
  final void replay_ofADeadRowWhoseIdIsAlsoInTheOutbox_leavesBothAlone() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);
    rows.seedPending(dead.id(), null);

    DeadLetterActionResult result = store.replay(List.of(dead.id()), null, false, OPERATOR);

    assertThat(result.skipped())
        .containsExactly(new Skipped(dead.id(), SkipReason.ALREADY_IN_OUTBOX));
    assertThat(rows.deadIds()).containsExactly(dead.id());
    assertThat(rows.outboxIds()).containsExactly(dead.id());
  }

  @Test
  final void replay_whenAnotherOutboxRowHoldsTheIdempotencyKey_skipsThatRowAndReplaysTheRest() {
    DeadLetter clashing = deadLetter().idempotencyKey("pay-77").build();
    DeadLetter fine = deadLetter().idempotencyKey("pay-78").build();
    rows.seed(clashing, fine);
    UUID holder = UuidV7.generate();
    rows.seedPending(holder, "pay-77");

    DeadLetterActionResult result =
        store.replay(List.of(clashing.id(), fine.id()), null, false, OPERATOR);

    assertThat(result.applied()).containsExactly(fine.id());
    assertThat(result.skipped())
        .containsExactly(new Skipped(clashing.id(), SkipReason.IDEMPOTENCY_KEY_TAKEN));
    assertThat(rows.deadIds()).containsExactly(clashing.id());
    assertThat(rows.outboxIds()).containsExactlyInAnyOrder(holder, fine.id());
    assertThat(store.auditTrail(clashing.id())).isEmpty();
  }

  @Test
  final void replay_dryRun_changesNothing_andPredictsWhatAReplayWouldSkip() {
    DeadLetter fine = deadLetter().build();
    DeadLetter clashing = deadLetter().idempotencyKey("pay-77").build();
    DeadLetter sameKeyAsFirst = deadLetter().idempotencyKey("shared").build();
    DeadLetter sameKeyAsSecond = deadLetter().idempotencyKey("shared").build();
    rows.seed(fine, clashing, sameKeyAsFirst, sameKeyAsSecond);
    rows.seedPending(UuidV7.generate(), "pay-77");
    UUID unknown = UuidV7.generate();
    String before = rows.snapshot();

    List<UUID> ids =
        List.of(fine.id(), clashing.id(), sameKeyAsFirst.id(), sameKeyAsSecond.id(), unknown);
    DeadLetterActionResult dry = store.replay(ids, QUARANTINE, true, OPERATOR);

    assertThat(rows.snapshot()).isEqualTo(before);
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.batches()).isZero();
    DeadLetterActionResult real = store.replay(ids, QUARANTINE, false, OPERATOR);
    assertThat(real.applied()).containsExactlyInAnyOrderElementsOf(dry.applied()).hasSize(2);
    assertThat(real.skipped()).containsExactlyInAnyOrderElementsOf(dry.skipped()).hasSize(3);
  }

  @Test
  final void replayMatching_replaysOnlyMatches_upToTheLimit_oldestFirst_inBatches() {
    store = store(executor, 2);
    List<DeadLetter> matching = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      matching.add(deadLetter().error("SNS_NOT_FOUND", "x").deadAt(T0.plusSeconds(10 - i)).build());
    }
    DeadLetter other = deadLetter().error("PAYLOAD_TOO_LARGE", "x").build();
    rows.seed(matching.toArray(DeadLetter[]::new));
    rows.seed(other);
    DeadLetterFilter filter = DeadLetterFilter.builder().errorCode("SNS_NOT_FOUND").build();

    DeadLetterActionResult result = store.replayMatching(filter, 3, null, false, OPERATOR);

    List<UUID> oldestThree = matching.reversed().stream().limit(3).map(DeadLetter::id).toList();
    assertThat(result.applied()).containsExactlyElementsOf(oldestThree);
    assertThat(result.batches()).isEqualTo(2);
    assertThat(result.moreMatching()).isTrue();
    assertThat(rows.outboxIds()).containsExactlyInAnyOrderElementsOf(oldestThree);
    assertThat(rows.deadIds()).hasSize(3).contains(other.id());

    DeadLetterActionResult rest = store.replayMatching(filter, 10, null, false, OPERATOR);
    assertThat(rest.applied()).hasSize(2);
    assertThat(rest.moreMatching()).isFalse();
  }

  @Test
  final void replayMatching_passesOverRowsItMustSkip_andStillReachesTheLimit() {
    store = store(executor, 1);
    DeadLetter clashing = deadLetter().idempotencyKey("pay-1").deadAt(T0).build();
    DeadLetter a = deadLetter().deadAt(T0.plusSeconds(1)).build();
    DeadLetter b = deadLetter().deadAt(T0.plusSeconds(2)).build();
    rows.seed(clashing, a, b);
    rows.seedPending(UuidV7.generate(), "pay-1");

    DeadLetterActionResult result =
        store.replayMatching(DeadLetterFilter.all(), 3, null, false, OPERATOR);

    assertThat(result.applied()).containsExactly(a.id(), b.id());
    assertThat(result.skipped())
        .containsExactly(new Skipped(clashing.id(), SkipReason.IDEMPOTENCY_KEY_TAKEN));
    assertThat(result.moreMatching()).isFalse();
  }

  @Test
  final void replayMatching_dryRun_changesNothing() {
    rows.seed(deadLetter().build(), deadLetter().build());
    String before = rows.snapshot();

    DeadLetterActionResult result =
        store.replayMatching(DeadLetterFilter.all(), 1, null, true, OPERATOR);

    assertThat(result.applied()).hasSize(1);
    assertThat(result.moreMatching()).isTrue();
    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  final void replay_whenALaterBatchFails_rollsItBack_andReportsWhatEarlierBatchesCommitted()
      throws SQLException {
    List<DeadLetter> dead =
        List.of(
            deadLetter().build(),
            deadLetter().build(),
            deadLetter().aggregate("Order", "poison").build(),
            deadLetter().build());
    rows.seed(dead.toArray(DeadLetter[]::new));
    List<UUID> ids = dead.stream().map(DeadLetter::id).toList();
    // A real refusal by the database: the outbox rejects the third row of the second batch.
    String table = rows.tables().messages();
    execute(
        "ALTER TABLE " + table + " ADD CONSTRAINT no_poison_ck CHECK (aggregate_id <> 'poison')");
    try {
      assertThatThrownBy(() -> store(executor, 2).replay(ids, null, false, OPERATOR))
          .isInstanceOfSatisfying(
              DeadLetterActionException.class,
              e -> {
                assertThat(e.committed().applied()).containsExactlyElementsOf(ids.subList(0, 2));
                assertThat(e.committed().batches()).isEqualTo(1);
              });
    } finally {
      execute("ALTER TABLE " + table + " DROP CONSTRAINT no_poison_ck");
    }
    assertThat(rows.outboxIds()).containsExactlyInAnyOrderElementsOf(ids.subList(0, 2));
    assertThat(rows.deadIds()).containsExactlyInAnyOrderElementsOf(ids.subList(2, 4));
    assertThat(rows.auditCount()).isEqualTo(2);
  }

  @Test
  final void concurrentReplaysOfTheSameIds_moveEachRowExactlyOnce() throws Exception {
    List<DeadLetter> dead = IntStream.range(0, 60).mapToObj(i -> deadLetter().build()).toList();
    rows.seed(dead.toArray(DeadLetter[]::new));
    List<UUID> ids = dead.stream().map(DeadLetter::id).toList();
    int replays = 4;
    CyclicBarrier start = new CyclicBarrier(replays);
    ExecutorService pool = Executors.newFixedThreadPool(replays);
    List<Future<DeadLetterActionResult>> results = new ArrayList<>();
    try {
      for (int i = 0; i < replays; i++) {
        DeadLetterStore replayer = store(newExecutor(), 25);
        AuditInfo audit = new AuditInfo("req-" + i, "operator-" + i, null);
        Callable<DeadLetterActionResult> replay =
            () -> {
              start.await();
              return replayer.replay(ids, null, false, audit);
            };
        results.add(pool.submit(replay));
      }
      List<UUID> applied = new ArrayList<>();
      int skipped = 0;
      for (Future<DeadLetterActionResult> f : results) {
        applied.addAll(f.get().applied());
        skipped += f.get().skipped().size();
      }

      assertThat(applied).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(skipped).isEqualTo(ids.size() * (replays - 1));
      assertThat(rows.outboxIds()).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(rows.deadIds()).isEmpty();
      assertThat(rows.auditCount()).isEqualTo(ids.size());
    } finally {
      pool.shutdownNow();
    }
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @Test
  final void replayAndList_ofRowsLargerTogetherThanOneResult_reachEveryRowWhole() {
    List<DeadLetter> dead = new ArrayList<>();
    // 40 KB of headers on the last one: with its payload, far over the Data API's 64 KB a row.
    String headers =
        "{\"a\":\"" + "\uD83D\uDE00".repeat(5_000) + "\",\"b\":\"" + "é".repeat(10_000) + "\"}";
    for (int i = 0; i < 5; i++) {
      String payload = "{\"blob\":\"" + "z".repeat(200 * 1024) + "\",\"n\":" + i + "}";
      DeadLetterBuilder row = deadLetter().deadAt(T0.plusSeconds(i)).payload(payload);
      dead.add((i == 4 ? row.headers(headers) : row).build());
    }
    rows.seed(dead.toArray(DeadLetter[]::new));
    // Where a row is bounded (the Data API's 64 KB), a preview is cut to what fits beside the rest.
    boolean rowBounded =
        newExecutor().inTransaction("read the row limit", s -> s.maxRowBytes() != Long.MAX_VALUE);

    List<UUID> listed = new ArrayList<>();
    DeadLetterCursor cursor = null;
    do {
      DeadLetterPage page = store.list(DeadLetterFilter.all(), cursor, 10, 300 * 1024);
      page.entries().forEach(e -> listed.add(e.deadLetter().id()));
      page.entries().forEach(e -> assertThat(e.payloadTruncated()).isEqualTo(rowBounded));
      page.entries().stream()
          .filter(e -> e.deadLetter().id().equals(dead.get(4).id()))
          .forEach(e -> assertThat(e.deadLetter().headers()).isEqualTo(headers));
      cursor = page.next();
    } while (cursor != null);
    List<UUID> ids = dead.stream().map(DeadLetter::id).toList();
    assertThat(listed).containsExactlyElementsOf(ids);

    DeadLetterActionResult result = store.replay(ids, null, false, OPERATOR);

    assertThat(result.applied()).containsExactlyElementsOf(ids);
    assertThat(rows.outboxIds()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(store.auditTrail(ids.get(4)).get(0).snapshot()).isEqualTo(dead.get(4));
    assertThat(store.auditTrail(ids.get(3)).get(0).snapshot()).isEqualTo(dead.get(3));
  }

  @Test
  final void discard_removesTheRow_andTheAuditKeepsItByteForByte() {
    String payload =
        "{ \"orderId\" : \"order-1001\",\n  \"note\": \"ünïcødé \\u00e9 \\\"q\\\" 🎉\" }\n";
    DeadLetter dead =
        deadLetter().payload(payload).idempotencyKey("k-1").headers(null).destination(null).build();
    rows.seed(dead);
    AuditInfo audit = new AuditInfo("req-9", "bob@example.com", "test order, never real");

    DeadLetterActionResult result = store.discard(List.of(dead.id()), false, audit);

    assertThat(result.applied()).containsExactly(dead.id());
    assertThat(rows.deadIds()).isEmpty();
    assertThat(rows.outboxIds()).isEmpty();
    AuditEntry entry = store.auditTrail(dead.id()).get(0);
    assertThat(entry.action()).isEqualTo("DISCARD");
    assertThat(entry.reason()).isEqualTo("test order, never real");
    assertThat(entry.requestedBy()).isEqualTo("bob@example.com");
    assertThat(entry.snapshot()).isEqualTo(dead);
    assertThat(entry.snapshot().payload().getBytes(UTF_8)).isEqualTo(payload.getBytes(UTF_8));
  }

  @Test
  final void discard_ofAnUnknownId_isSkipped_andTheOthersGo() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);
    UUID unknown = UuidV7.generate();

    DeadLetterActionResult result = store.discard(List.of(unknown, dead.id()), false, OPERATOR);

    assertThat(result.applied()).containsExactly(dead.id());
    assertThat(result.skipped()).containsExactly(new Skipped(unknown, SkipReason.NOT_DEAD));
    assertThat(rows.auditCount()).isEqualTo(1);
  }

  @Test
  final void discard_dryRun_changesNothing() {
    DeadLetter dead = deadLetter().build();
    rows.seed(dead);
    String before = rows.snapshot();

    DeadLetterActionResult result = store.discard(List.of(dead.id()), true, OPERATOR);

    assertThat(result.applied()).containsExactly(dead.id());
    assertThat(rows.snapshot()).isEqualTo(before);
  }

  @Test
  final void count_isTheWholeTable() {
    rows.seed(deadLetter().build(), deadLetter().eventType("X").build());

    assertThat(store.count()).isEqualTo(2);
  }

  @Test
  final void replay_refusesRepeatedIdsAndBadDestinations_beforeTouchingAnything() {
    UUID id = UuidV7.generate();

    assertThatThrownBy(() -> store.replay(List.of(id, id), null, false, OPERATOR))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.replay(List.of(id), "not-a-topic", false, OPERATOR))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> store.replayMatching(DeadLetterFilter.all(), 1001, null, false, OPERATOR))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- the audit action's read

  /** A store writing its audit rows at {@code at}. */
  private DeadLetterStore storeAt(Instant at) {
    return DeadLetterStore.builder(executor)
        .tables(rows.tables())
        .clock(Clock.fixed(at, ZoneOffset.UTC))
        .build();
  }

  @Test
  void audit_listsEntriesNewestFirst_withWhoWhatWhenWhy_theSnapshotAndTheOverride() {
    DeadLetter replayed = deadLetter().build();
    DeadLetter discarded = deadLetter().eventType("OrderShipped").build();
    rows.seed(replayed, discarded);
    storeAt(NOW).replay(List.of(replayed.id()), QUARANTINE, false, OPERATOR);
    AuditInfo bob = new AuditInfo("req-2", "bob@example.com", "load-test order");
    storeAt(NOW.plusSeconds(60)).discard(List.of(discarded.id()), false, bob);
    String before = rows.snapshot();

    AuditPage page = store.audit(AuditFilter.all(), null, 10, 1000);

    assertThat(rows.snapshot()).as("the audit reads only").isEqualTo(before);
    assertThat(page.next()).isNull();
    assertThat(page.entries()).extracting(AuditPage.Entry::entry).hasSize(2);
    AuditEntry newest = page.entries().get(0).entry();
    assertThat(newest.action()).isEqualTo(AuditEntry.DISCARD);
    assertThat(newest.deadLetterId()).isEqualTo(discarded.id());
    assertThat(newest.requestId()).isEqualTo("req-2");
    assertThat(newest.requestedBy()).isEqualTo("bob@example.com");
    assertThat(newest.reason()).isEqualTo("load-test order");
    assertThat(newest.createdAt()).isEqualTo(NOW.plusSeconds(60));
    assertThat(newest.snapshot()).isEqualTo(discarded);
    assertThat(newest.destinationOverride()).isNull();
    AuditEntry older = page.entries().get(1).entry();
    assertThat(older.action()).isEqualTo(AuditEntry.REPLAY);
    assertThat(older.snapshot()).isEqualTo(replayed);
    assertThat(older.destinationOverride()).isEqualTo(QUARANTINE);
    assertThat(older.createdAt()).isEqualTo(NOW);
    assertThat(page.entries())
        .allSatisfy(
            e -> {
              assertThat(e.payloadTruncated()).isFalse();
              assertThat(e.payloadLength()).isEqualTo(replayed.payload().length());
            });
  }

  @Test
  void audit_filtersByDeadLetterRequesterRequestActionAndTimeRange() {
    DeadLetter a = deadLetter().build();
    DeadLetter b = deadLetter().build();
    DeadLetter c = deadLetter().build();
    rows.seed(a, b, c);
    AuditInfo alice = new AuditInfo("req-a", "alice@example.com", "topic fixed");
    AuditInfo bob = new AuditInfo("req-b", "bob@example.com", "never real");
    storeAt(T0).replay(List.of(a.id()), null, false, alice);
    storeAt(T0.plusSeconds(3600)).discard(List.of(b.id()), false, bob);
    storeAt(T0.plusSeconds(7200)).replay(List.of(c.id()), null, false, alice);

    assertThat(auditedIds(AuditFilter.builder().deadLetterId(b.id()).build()))
        .containsExactly(b.id());
    assertThat(auditedIds(AuditFilter.builder().requestedBy("alice@example.com").build()))
        .containsExactly(c.id(), a.id());
    assertThat(auditedIds(AuditFilter.builder().requestId("req-b").build()))
        .containsExactly(b.id());
    assertThat(auditedIds(AuditFilter.builder().action(AuditEntry.REPLAY).build()))
        .containsExactly(c.id(), a.id());
    assertThat(auditedIds(AuditFilter.builder().action(AuditEntry.DISCARD).build()))
        .containsExactly(b.id());
    assertThat(
            auditedIds(
                AuditFilter.builder().from(T0.plusSeconds(3600)).to(T0.plusSeconds(7200)).build()))
        .as("from inclusive, to exclusive")
        .containsExactly(b.id());
    assertThat(auditedIds(AuditFilter.builder().from(T0.plusNanos(1000)).build()))
        .containsExactly(c.id(), b.id());
    assertThat(
            auditedIds(
                AuditFilter.builder()
                    .requestedBy("alice@example.com")
                    .action(AuditEntry.REPLAY)
                    .to(T0.plusSeconds(1))
                    .build()))
        .containsExactly(a.id());
    assertThat(auditedIds(AuditFilter.builder().requestedBy("carol@example.com").build()))
        .isEmpty();
  }

  @Test
  void audit_pagesWithACursor_visitingEveryEntryOnce_newestFirst() {
    List<UUID> discarded = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      DeadLetter d = deadLetter().build();
      rows.seed(d);
      // Several entries share a time: the cursor follows the order they were written in.
      storeAt(NOW.plusSeconds(i / 3)).discard(List.of(d.id()), false, OPERATOR);
      discarded.add(0, d.id());
    }

    List<UUID> seen = new ArrayList<>();
    AuditCursor cursor = null;
    int pages = 0;
    do {
      AuditPage page = store.audit(AuditFilter.all(), cursor, 3, 100);
      page.entries().forEach(e -> seen.add(e.entry().deadLetterId()));
      cursor = page.next();
      pages++;
    } while (cursor != null);

    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyElementsOf(discarded);
    assertThat(AuditCursor.decode(new AuditCursor(42).encode())).contains(new AuditCursor(42));
    assertThat(AuditCursor.decode(new DeadLetterCursor(T0, UuidV7.generate()).encode()))
        .as("a listing cursor is not an audit cursor")
        .isEmpty();
  }

  @Test
  void audit_cutsSnapshotPayloadsToThePreview_andCountsCharactersAsTheDatabaseDoes() {
    String payload = "{\"memo\":\"" + "🎉".repeat(30) + "\"}";
    DeadLetter dead = deadLetter().payload(payload).build();
    rows.seed(dead);
    store.discard(List.of(dead.id()), false, OPERATOR);

    AuditPage.Entry cut = store.audit(AuditFilter.all(), null, 1, 20).entries().get(0);
    AuditPage.Entry whole = store.audit(AuditFilter.all(), null, 1, 1000).entries().get(0);

    int characters = payload.codePointCount(0, payload.length());
    assertThat(cut.payloadLength()).isEqualTo(characters);
    assertThat(cut.payloadTruncated()).isTrue();
    assertThat(cut.entry().snapshot().payload())
        .isEqualTo(payload.substring(0, payload.offsetByCodePoints(0, 20)));
    assertThat(cut.entry().snapshot().id()).isEqualTo(dead.id());
    assertThat(whole.payloadTruncated()).isFalse();
    assertThat(whole.entry().snapshot()).isEqualTo(dead);
  }

  private List<UUID> auditedIds(AuditFilter filter) {
    return store.audit(filter, null, 100, 100).entries().stream()
        .map(e -> e.entry().deadLetterId())
        .toList();
  }
}
