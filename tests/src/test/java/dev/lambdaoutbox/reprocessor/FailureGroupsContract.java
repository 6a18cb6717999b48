package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.T0;
import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.CanaryCheck;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.FailureFingerprint;
import dev.lambdaoutbox.store.model.deadletter.FailureGroup;
import dev.lambdaoutbox.store.model.deadletter.FailureGroupPage;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.model.deadletter.RedriveStep;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.Backend;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Failure groups and their re-drive, on every store: the poller's move stamps each dead letter with
 * the fingerprint Java computes, older rows get theirs from a bounded backfill, a listing pages
 * through the groups, a canary goes back alone and its fate is read, the rest follow at a paced due
 * time each, and a stop holds what has not gone yet until a resume spaces it out again. Run over
 * each way the reprocessor reaches the tables by a small subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FailureGroupsContract {
  static final Instant NOW = Instant.parse("2026-03-02T09:00:00.123456Z");
  static final AuditInfo OPERATOR = new AuditInfo("req-1", "alice@example.com", "topic fixed");
  static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:orders";

  private final List<AutoCloseable> resources = new ArrayList<>();
  private TestDatabase db;
  private OutboxTables tables;
  private DeadLetterTables rows;
  private SqlExecutor executor;
  private DeadLetterStore store;

  /** How the reprocessor reaches the tables. */
  abstract Backend backend();

  @BeforeAll
  void createTables() {
    db = backend().database();
    tables = db.createTables("fgr");
    rows = new DeadLetterTables(db, tables);
  }

  @AfterAll
  void dropTables() {
    db.dropTables(tables);
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM " + tables.messages());
      st.execute("DELETE FROM " + tables.deadLetters());
      st.execute("DELETE FROM " + tables.deadLetterAudit());
    }
    executor = backend().executor(tables, resources);
    store =
        DeadLetterStore.builder(executor)
            .tables(tables)
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .batchSize(4)
            .build();
  }

  @AfterEach
  void close() {
    Backend.close(resources);
  }

  @Test
  final void
      poller_stampsEachDeadLetter_withTheFingerprintJavaComputes_groupingWhatDiffersOnlyInIds() {
    String reasonA =
        "Topic arn:aws:sns:us-east-1:123456789012:orders-%d not found (Request ID: %s)";
    List<UUID> ids = new ArrayList<>();
    List<DeliveryOutcome> outcomes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      UUID id = UuidV7.generate();
      ids.add(id);
      rows.seedOutbox(id, "OrderPlaced", TOPIC, T0);
      outcomes.add(
          new DeliveryOutcome.DeadLetter(
              id, "NotFound", reasonA.formatted(1000 + i, UUID.randomUUID())));
    }
    UUID otherType = UuidV7.generate();
    rows.seedOutbox(otherType, "OrderShipped", TOPIC, T0);
    outcomes.add(new DeliveryOutcome.DeadLetter(otherType, "NotFound", reasonA.formatted(7, "x")));
    UUID otherCause = UuidV7.generate();
    rows.seedOutbox(otherCause, "OrderPlaced", null, T0);
    outcomes.add(
        new DeliveryOutcome.DeadLetter(
            otherCause, "InvalidParameter", "Message too long: 262145 bytes, 'order-7'"));

    deadLetterAll(outcomes);

    Map<UUID, List<String>> stamped = rows.fingerprints();
    assertThat(stamped).hasSize(5);
    FailureFingerprint a =
        FailureFingerprint.of(
            "NotFound", reasonA.formatted(1000, UUID.randomUUID()), "OrderPlaced", TOPIC);
    for (UUID id : ids) {
      assertThat(stamped.get(id)).containsExactly(a.id(), a.maskedReason());
    }
    assertThat(a.maskedReason())
        .isEqualTo(
            "Topic arn:aws:sns:us-east-1:<account>:<resource> not found (Request ID: <uuid>)");
    assertThat(stamped.get(otherCause))
        .containsExactly(
            FailureFingerprint.of(
                    "InvalidParameter", "Message too long: 1 bytes, 'x'", "OrderPlaced", null)
                .id(),
            "Message too long: <n> bytes, '<value>'");

    FailureGroupPage page = store.failureGroups(null, 10, 2, 0);
    assertThat(page.groups()).extracting(FailureGroup::count).containsExactlyInAnyOrder(3L, 1L, 1L);
    FailureGroup big = page.groups().stream().filter(g -> g.count() == 3).findFirst().orElseThrow();
    assertThat(big.fingerprint()).isEqualTo(a.id());
    assertThat(big.errorCode()).isEqualTo("NotFound");
    assertThat(big.eventType()).isEqualTo("OrderPlaced");
    assertThat(big.destination()).isEqualTo(TOPIC);
    assertThat(big.sampleIds()).hasSize(2).isSubsetOf(ids);
    assertThat(page.unfingerprinted()).isZero();
    assertThat(page.next()).isNull();
  }

  @Test
  final void olderDeadLetters_getTheirFingerprintsFromABoundedBackfill_thenGroup() {
    List<DeadLetter> seeded = new ArrayList<>();
    for (int i = 0; i < 70; i++) {
      seeded.add(
          deadLetter()
              .error(
                  i % 2 == 0 ? "NotFound" : "Throttled",
                  "attempt " + i + " failed for order-" + (5000 + i))
              .deadAt(T0.plusSeconds(i))
              .build());
    }
    rows.seed(seeded.toArray(DeadLetter[]::new));

    FailureGroupPage first = store.failureGroups(null, 10, 3, 30);
    assertThat(first.backfilled()).isEqualTo(30);
    assertThat(first.unfingerprinted()).isEqualTo(40);
    assertThat(first.groups().stream().mapToLong(FailureGroup::count).sum()).isEqualTo(30);

    FailureGroupPage all = store.failureGroups(null, 10, 3, 1000);
    assertThat(all.backfilled()).isEqualTo(40);
    assertThat(all.unfingerprinted()).isZero();
    assertThat(all.groups()).extracting(FailureGroup::count).containsExactlyInAnyOrder(35L, 35L);
    DeadLetter one = seeded.get(0);
    assertThat(rows.fingerprints().get(one.id()).get(0))
        .isEqualTo(
            FailureFingerprint.of(
                    one.errorCode(), one.errorReason(), one.eventType(), one.destination())
                .id());
    FailureGroup notFound =
        all.groups().stream()
            .filter(g -> g.errorCode().equals("NotFound"))
            .findFirst()
            .orElseThrow();
    assertThat(notFound.maskedReason()).isEqualTo("attempt <n> failed for order-<n>");
    assertThat(notFound.firstDeadAt()).isEqualTo(T0);
    assertThat(notFound.lastDeadAt()).isEqualTo(T0.plusSeconds(68));
    assertThat(notFound.sampleIds())
        .containsExactly(seeded.get(0).id(), seeded.get(2).id(), seeded.get(4).id());
  }

  @Test
  final void listing_pagesThroughTheGroups_byFingerprint() {
    for (int g = 0; g < 5; g++) {
      rows.seed(deadLetter().error("Code" + g, "failed").build());
    }
    store.failureGroups(null, 1, 1, 100);

    List<String> seen = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      FailureGroupPage page = store.failureGroups(after, 2, 1, 0);
      page.groups().forEach(g -> seen.add(g.fingerprint()));
      after = page.next();
      pages++;
    } while (after != null);

    assertThat(pages).isEqualTo(3);
    assertThat(seen).hasSize(5).doesNotHaveDuplicates().isSorted();
  }

  @Test
  final void canary_goesBackAlone_dueNow_andItsFateIsRead() {
    String group = seedGroup(5);

    DeadLetterActionResult canary = store.replayCanary(group, OPERATOR);

    assertThat(canary.applied()).hasSize(1);
    UUID id = canary.applied().get(0);
    assertThat(rows.deadIds()).hasSize(4).doesNotContain(id);
    OutboxRow row = rows.outboxRows().get(0);
    assertThat(row.id()).isEqualTo(id);
    assertThat(row.nextAttemptAt()).isEqualTo(NOW);
    assertThat(rows.redriveGroups()).containsEntry(id, group);
    assertThat(rows.auditCount(AuditEntry.REDRIVE_CANARY)).isEqualTo(1);
    assertThat(store.canary(id).state()).isEqualTo(CanaryCheck.State.PENDING);

    OutboxStore poller = OutboxStore.builder(executor).tables(tables).build();
    List<OutboxMessage> claimed = poller.claim("p", 10, NOW, Duration.ofMinutes(1)).messages();
    assertThat(claimed).extracting(OutboxMessage::id).containsExactly(id);
    poller.complete(
        "p",
        List.of(new DeliveryOutcome.DeadLetter(id, "AuthorizationError", "still not allowed")),
        NOW);

    CanaryCheck failed = store.canary(id);
    assertThat(failed.state()).isEqualTo(CanaryCheck.State.FAILED_AGAIN);
    assertThat(failed.errorCode()).isEqualTo("AuthorizationError");
    assertThat(failed.errorReason()).isEqualTo("still not allowed");

    UUID next = store.replayCanary(group, OPERATOR).applied().get(0);
    poller.claim("p", 10, NOW, Duration.ofMinutes(1));
    poller.complete("p", List.of(new DeliveryOutcome.Published(next)), NOW);
    assertThat(store.canary(next).state()).isEqualTo(CanaryCheck.State.DELIVERED);
  }

  @Test
  final void redrive_spacesTheRowsAtThePace_andTheNextStepFollowsTheLast() {
    String group = seedGroup(10);

    RedriveStep first = store.redrive(group, 3, 50, OPERATOR);
    RedriveStep rest = store.redrive(group, 100, 50, OPERATOR);

    assertThat(first.replayed().applied()).hasSize(3);
    assertThat(first.more()).isTrue();
    assertThat(rest.replayed().applied()).hasSize(7);
    assertThat(rest.more()).isFalse();
    assertThat(rows.deadIds()).isEmpty();
    List<Instant> due = rows.outboxRows().stream().map(OutboxRow::nextAttemptAt).sorted().toList();
    assertThat(due)
        .containsExactlyElementsOf(
            IntStream.range(0, 10).mapToObj(i -> NOW.plusMillis(20L * i)).toList());
    assertThat(rest.lastDue()).isEqualTo(NOW.plusMillis(180));
    assertThat(rows.redriveGroups().values()).containsOnly(group);
    assertThat(rows.auditCount(AuditEntry.REDRIVE)).isEqualTo(10);
    assertThat(store.redriveRows(group)).isEqualTo(new RedriveRows(0, 10, 0));
    // Each row waits for its paced time (DueTimes): the age metric counts it from then.
    OutboxStore poller = OutboxStore.builder(executor).tables(tables).build();
    assertThat(poller.backlog(NOW.minusSeconds(1)).oldestUnpublishedAge()).isZero();
    assertThat(poller.backlog(NOW.plusSeconds(10)).oldestUnpublishedAge())
        .isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  final void stop_holdsWhatIsNotPublished_butNotWhatAPollerHolds_andResumeSpacesItAgain() {
    String group = seedGroup(6);
    store.redrive(group, 100, 10, OPERATOR);
    OutboxStore poller = OutboxStore.builder(executor).tables(tables).build();
    List<OutboxMessage> leased = poller.claim("p", 10, NOW, Duration.ofMinutes(1)).messages();
    assertThat(leased).hasSize(1); // only the first is due: the others follow 100 ms apart

    List<UUID> held = store.stopRedrive(group, 1000, OPERATOR);

    assertThat(held).hasSize(5).doesNotContain(leased.get(0).id());
    assertThat(store.redriveRows(group)).isEqualTo(new RedriveRows(0, 1, 5));
    // A year on, only the leased row (its lease long over) is claimed: the held ones never are.
    assertThat(
            poller.claim("q", 10, NOW.plus(Duration.ofDays(365)), Duration.ofMinutes(1)).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(leased.get(0).id());
    assertThat(rows.auditCount(AuditEntry.REDRIVE_HOLD)).isEqualTo(5);

    RedriveStep resumed = store.redrive(group, 100, 10, OPERATOR);

    assertThat(resumed.resumed()).isEqualTo(5);
    assertThat(resumed.replayed().applied()).isEmpty();
    assertThat(store.redriveRows(group)).isEqualTo(new RedriveRows(0, 6, 0));
    List<Instant> due =
        rows.outboxRows().stream()
            .filter(r -> !r.id().equals(leased.get(0).id()))
            .map(OutboxRow::nextAttemptAt)
            .sorted(Comparator.naturalOrder())
            .toList();
    // The one scheduled row is in flight (it was due already): the pace starts now.
    assertThat(due)
        .containsExactlyElementsOf(
            IntStream.range(0, 5).mapToObj(i -> NOW.plusMillis(100L * i)).toList());
    assertThat(rows.auditCount(AuditEntry.REDRIVE_RESUME)).isEqualTo(5);
  }

  /** Seeds {@code n} dead letters of one cause and backfills them; returns their group. */
  private String seedGroup(int n) {
    for (int i = 0; i < n; i++) {
      rows.seed(
          deadLetter()
              .error("NotFound", "Topic orders-" + i + " not found")
              .deadAt(T0.plusSeconds(i))
              .build());
    }
    FailureGroupPage page = store.failureGroups(null, 10, 1, 1000);
    assertThat(page.groups()).hasSize(1);
    return page.groups().get(0).fingerprint();
  }

  private void deadLetterAll(List<DeliveryOutcome> outcomes) {
    OutboxStore poller = OutboxStore.builder(executor).tables(tables).build();
    assertThat(poller.claim("p", 10, T0, Duration.ofMinutes(1)).messages())
        .hasSize(outcomes.size());
    CompletionReport report = poller.complete("p", outcomes, T0);
    assertThat(report).isNotNull();
  }
}
