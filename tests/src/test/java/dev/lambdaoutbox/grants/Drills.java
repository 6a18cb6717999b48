package dev.lambdaoutbox.grants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.DestinationHealthStore;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.ParkedKeys;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.waiting.WaitingRowStore;
import dev.lambdaoutbox.testing.PoisonRows;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.DuplicateIdempotencyKeyException;
import dev.lambdaoutbox.writer.Inbox;
import dev.lambdaoutbox.writer.InboxPurge;
import dev.lambdaoutbox.writer.InboxResult;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The work of each user of the outbox, every statement of it, on one set of tables: what the
 * application's writer, the poller and the reprocessor do, each run through the real writer library
 * and stores on the login it is given, and checked. What a drill needs to find in the tables first,
 * the tables' owner puts there. Any refused statement ends the drill with its exception.
 */
final class Drills {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration RETENTION = Duration.ofHours(1);
  private static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/000000000000/grants";

  private final TestDatabase owner;
  private final OutboxTables tables;
  private final Instant t0 = Instant.now().truncatedTo(ChronoUnit.MICROS);

  Drills(TestDatabase owner, OutboxTables tables) {
    this.owner = owner;
    this.tables = tables;
  }

  /**
   * Empties every table and puts the ordered claim's cursor back at the first key, as the owner.
   */
  void clear() {
    sql(
        "DELETE FROM " + tables.messages(),
        "DELETE FROM " + tables.deadLetters(),
        "DELETE FROM " + tables.deadLetterAudit(),
        "DELETE FROM " + tables.idempotencyKeys(),
        "DELETE FROM " + tables.destinationHealth(),
        "DELETE FROM " + tables.parkedKeys(),
        "UPDATE " + tables.claimCursors() + " SET aggregate_type = NULL, aggregate_id = NULL",
        "DELETE FROM " + tables.inbox());
  }

  // ---- the application's writer

  /**
   * Appends with and without an idempotency key; is refused a key in use, by the key table and,
   * once the window let the key go while its event waits, by the outbox row (giving back the key it
   * took); records consumed messages in the inbox, then purges them.
   */
  void writer(TestDatabase asWriter) throws SQLException {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    OutboxEvent plain = event("w", "w-1");
    OutboxEvent keyed = event("w", "w-2").toBuilder().idempotencyKey("grants-key").build();
    append(asWriter, writer, plain, keyed);

    DuplicateIdempotencyKeyException inKeyTable =
        refused(
            asWriter, writer, event("w", "w-3").toBuilder().idempotencyKey("grants-key").build());
    assertThat(inKeyTable.firstEventId()).isEqualTo(keyed.id());

    sql("DELETE FROM " + tables.idempotencyKeys()); // the window let it go; its event waits
    DuplicateIdempotencyKeyException inOutbox =
        refused(
            asWriter, writer, event("w", "w-4").toBuilder().idempotencyKey("grants-key").build());
    assertThat(inOutbox.firstEventId()).isEqualTo(keyed.id());
    assertThat(count(tables.idempotencyKeys())).as("the key taken back").isZero();
    assertThat(count(tables.messages())).isEqualTo(2);

    Inbox inbox = Inbox.create(tables);
    for (InboxResult expected : List.of(InboxResult.PROCESSED, InboxResult.SKIPPED)) {
      InboxResult result =
          asWriter
              .jdbi()
              .inTransaction(h -> inbox.processOnce(h, "grants", plain.id().toString(), () -> {}));
      assertThat(result).isEqualTo(expected);
    }
    InboxPurge purge =
        InboxPurge.builder()
            .tables(tables)
            .clock(Clock.fixed(Instant.now().plus(Duration.ofDays(30)), ZoneOffset.UTC))
            .build();
    try (Connection c = asWriter.open()) {
      assertThat(purge.purge(c)).isEqualTo(1);
    }
  }

  // ---- the poller

  /**
   * Claims (a row it cannot read dead-lettered as claimed), publishes, retries, defers, releases
   * and dead-letters, replacing an older dead letter of the same event id; purges the sent rows and
   * the idempotency keys past their time; counts the backlog and the due rows; parks, probes and
   * forgets a destination; and with ordering, claims heads, holds back the events behind a head
   * that backs off, and parks an aggregate behind its dead-lettered head.
   */
  void poller(SqlExecutor asPoller) {
    List<UUID> ids = pollerSetup();
    OutboxStore store =
        OutboxStore.builder(asPoller)
            .tables(tables)
            .retention(RETENTION)
            .idempotencyWindow(RETENTION)
            .build();
    OutboxStore ordered =
        OutboxStore.builder(asPoller).tables(tables).ordering(Ordering.AGGREGATE).build();

    Claim claim = store.claim("poller-1", 10, t0, LEASE);
    assertThat(claim.messages())
        .extracting(OutboxMessage::id)
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(claim.unreadable()).hasSize(1);
    CompletionReport report =
        store.complete(
            "poller-1",
            List.of(
                new DeliveryOutcome.Published(ids.get(0)),
                new DeliveryOutcome.Retry(ids.get(1), "Throttling", "slow", t0.plusSeconds(1)),
                new DeliveryOutcome.DeadLetter(ids.get(2), "NO_DESTINATION", "no route"),
                new DeliveryOutcome.Defer(ids.get(3), "NotFound", "queue", t0.plusSeconds(1)),
                new DeliveryOutcome.Release(ids.get(4))),
            t0);
    assertThat(report.completions())
        .extracting(Completion::result)
        .containsExactly(
            Completion.Result.PUBLISHED,
            Completion.Result.RETRIED,
            Completion.Result.DEAD_LETTERED,
            Completion.Result.DEFERRED,
            Completion.Result.DEFERRED);
    assertThat(report.superseded()).as("the older dead letter of the same id").hasSize(1);

    // The woken run that lingers takes, renews and gives back its lease, free again from the
    // moment it was taken (the next drill's clock reads later).
    String lease = OutboxStore.WAKE_LINGER_LEASE;
    Instant leaseAt = Instant.now().truncatedTo(ChronoUnit.MICROS);
    assertThat(store.holdLease(lease, "poller-1", leaseAt, leaseAt.plusSeconds(3))).isTrue();
    assertThat(store.holdLease(lease, "poller-1", leaseAt, leaseAt.plusSeconds(4))).isTrue();
    assertThat(store.releaseLease(lease, "poller-1", leaseAt)).isTrue();

    Instant later = t0.plusSeconds(2);
    assertThat(store.countDue(later, 100)).isEqualTo(3);
    Claim again = store.claim("poller-2", 10, later, LEASE);
    store.complete(
        "poller-2",
        again.messages().stream()
            .map(m -> (DeliveryOutcome) new DeliveryOutcome.Published(m.id()))
            .toList(),
        later);
    Backlog backlog = store.backlog(later);
    assertThat(backlog.deadLetters()).isEqualTo(2);
    assertThat(backlog.oldestUnpublishedAge()).isZero();
    PurgeReport purged = store.purge(t0.plus(RETENTION).plusSeconds(60), LEASE);
    assertThat(purged.total()).as("4 sent rows and 1 key").isEqualTo(5);

    DestinationHealthStore health = store.destinationHealth();
    assertThat(
            health
                .markDown(QUEUE, DestinationState.MISCONFIGURED, "NotFound", "no queue", t0, t0)
                .inserted())
        .isTrue();
    assertThat(health.all()).containsKey(QUEUE);
    assertThat(health.claimProbe(QUEUE, t0, t0.plusSeconds(5))).isTrue();
    assertThat(health.probeFailed(QUEUE, DestinationState.UNAVAILABLE, "Timeout", "slow", t0))
        .isPresent();
    assertThat(health.markHealthy(QUEUE)).isTrue();
    health.markDown(QUEUE, DestinationState.UNAVAILABLE, "Timeout", "slow", t0, t0);
    assertThat(health.forgetStale(t0.plus(Duration.ofDays(1)))).isEqualTo(1);

    // Ordering: the heads only; a head backing off holds back its followers; a dead-lettered one
    // parks its aggregate. The claim moves the shared cursor, here recreating its row, deleted by
    // hand.
    sql("DELETE FROM " + tables.claimCursors());
    OutboxWriter after =
        OutboxWriter.builder().tables(tables).clock(fixed(t0.plusSeconds(1))).build();
    List<UUID> parkedAggregate = new ArrayList<>();
    List<UUID> backingOff = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      OutboxEvent e = event("o", i < 3 ? "o-1" : "o-2");
      append(owner, after, e); // one transaction each: the aggregate's order
      (i < 3 ? parkedAggregate : backingOff).add(e.id());
    }
    Claim heads = ordered.claim("poller-3", 10, later, LEASE);
    assertThat(heads.messages())
        .extracting(OutboxMessage::id)
        .containsExactlyInAnyOrder(parkedAggregate.get(0), backingOff.get(0));
    CompletionReport parked =
        ordered.complete(
            "poller-3",
            List.of(
                new DeliveryOutcome.DeadLetter(parkedAggregate.get(0), "InvalidParameter", "bad"),
                new DeliveryOutcome.Retry(
                    backingOff.get(0), "Throttling", "slow", later.plusSeconds(60))),
            later);
    assertThat(parked.parked()).containsEntry(parkedAggregate.get(0), 2);
    assertThat(count(tables.claimCursors())).as("the cursor's row, recreated").isEqualTo(1);
    assertThat(ordered.claim("poller-4", 10, later.plusSeconds(1), LEASE).isEmpty()).isTrue();
    assertThat(ordered.countDue(later.plusSeconds(1), 100)).isZero();
    Backlog parkedBacklog = ordered.backlog(later);
    assertThat(parkedBacklog.parkedKeys()).isEqualTo(1);
    assertThat(parkedBacklog.parkedEvents()).isEqualTo(2);
  }

  /**
   * Five rows due, their ids returned (one keyed; the third's id has an older dead letter, from an
   * earlier event of the application's that reused it), and a row the poller cannot read.
   */
  private List<UUID> pollerSetup() {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).clock(fixed(t0)).build();
    List<OutboxEvent> due =
        List.of(
            event("p", "p-1").toBuilder().idempotencyKey("grants-p").build(),
            event("p", "p-2"),
            event("p", "p-3"),
            event("p", "p-4"),
            event("p", "p-5"));
    OutboxEvent reused = due.get(2);
    append(
        owner,
        OutboxWriter.builder().tables(tables).clock(fixed(t0.minusSeconds(9))).build(),
        reused);
    try (OwnerStore older = new OwnerStore()) {
      OutboxStore store = OutboxStore.builder(older.executor()).tables(tables).build();
      store.claim("earlier", 10, t0, LEASE);
      store.complete(
          "earlier",
          List.of(new DeliveryOutcome.DeadLetter(reused.id(), "NO_DESTINATION", "x")),
          t0);
    }
    append(owner, writer, due.toArray(OutboxEvent[]::new));
    OutboxEvent unreadable = event("p", "p-6");
    append(owner, writer, unreadable);
    PoisonRows.poison(owner, tables, unreadable.id(), PoisonRows.kinds(owner.dialect()).get(0));
    return due.stream().map(OutboxEvent::id).toList();
  }

  // ---- the reprocessor

  /**
   * Lists, summarises and counts the dead letters, their failure groups (backfilling fingerprints)
   * and the parked aggregates; replays a parked head by id (a dry run first), releasing its
   * aggregate; replays by filter to another destination; discards; reads the audit trail and the
   * audit.
   */
  void reprocessor(SqlExecutor asReprocessor) {
    try (OwnerStore asOwner = new OwnerStore()) {
      poller(asOwner.executor());
    }
    DeadLetterStore store = DeadLetterStore.builder(asReprocessor).tables(tables).build();
    AuditInfo audit = new AuditInfo("grants-request", "grants@test", "least privilege");

    assertThat(store.list(DeadLetterFilter.all(), null, 50, 100).entries()).hasSize(3);
    assertThat(store.summarize(DeadLetterFilter.all()).total()).isEqualTo(3);
    assertThat(store.count()).isEqualTo(3);
    // Failure groups, with the backfill of fingerprints rows from before them lack.
    sql("UPDATE " + tables.deadLetters() + " SET failure_fingerprint = NULL");
    assertThat(store.failureGroups(null, 10, 1, 100).backfilled()).isEqualTo(3);
    ParkedKeys parked = store.parkedKeys(10);
    assertThat(parked.total()).isEqualTo(1);
    UUID head = parked.keys().get(0).deadLetterId();

    assertThat(store.replay(List.of(head), null, true, audit).released()).hasSize(1);
    DeadLetterActionResult replayed = store.replay(List.of(head), null, false, audit);
    assertThat(replayed.applied()).containsExactly(head);
    assertThat(replayed.released()).hasSize(1);
    assertThat(store.parkedKeys(10).total()).isZero();

    DeadLetterFilter unrouted = DeadLetterFilter.builder().errorCode("NO_DESTINATION").build();
    DeadLetterActionResult byFilter = store.replayMatching(unrouted, 10, QUEUE, false, audit);
    assertThat(byFilter.applied()).hasSize(1);

    UUID unreadable =
        store.list(DeadLetterFilter.all(), null, 50, 100).entries().get(0).deadLetter().id();
    assertThat(store.discard(List.of(unreadable), false, audit).applied())
        .containsExactly(unreadable);
    assertThat(store.count()).isZero();

    assertThat(store.auditTrail(head)).extracting(e -> e.action()).contains("REPLAY");
    assertThat(store.audit(AuditFilter.all(), null, 10, 100).entries())
        .hasSizeGreaterThanOrEqualTo(3);

    waitingRows(asReprocessor, audit);
  }

  /**
   * Lists the rows waiting for a misconfigured topic, retargets one of them (a dry run first) and,
   * with ordering, dead-letters the other, parking its aggregate.
   */
  private void waitingRows(SqlExecutor asReprocessor, AuditInfo audit) {
    String missing = "arn:aws:sns:us-east-1:000000000000:grants-missing";
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    OutboxEvent first = event("waiting", "w-1").toBuilder().destination(missing).build();
    OutboxEvent second = event("waiting", "w-2").toBuilder().destination(missing).build();
    append(owner, writer, first, second);
    try (OwnerStore asOwner = new OwnerStore()) {
      OutboxStore.builder(asOwner.executor())
          .tables(tables)
          .build()
          .destinationHealth()
          .markDown(missing, DestinationState.MISCONFIGURED, "NotFound", "no topic", t0, t0);
    }
    Instant probe = Instant.now().plusSeconds(3600);
    sql(
        "UPDATE "
            + tables.messages()
            + " SET waiting_for = '"
            + DestinationHealth.key(missing)
            + "', last_error_code = 'NotFound', next_attempt_at = "
            + (owner.dialect() == SqlDialect.POSTGRESQL
                ? "'" + probe + "'::timestamptz"
                : "'" + java.sql.Timestamp.from(probe) + "'")
            + " WHERE destination = '"
            + missing
            + "'");

    WaitingRowStore waiting =
        DeadLetterStore.builder(asReprocessor).tables(tables).waitingRows(Ordering.AGGREGATE);
    assertThat(waiting.waiting(DeadLetterFilter.all()))
        .extracting(w -> w.health().destination())
        .containsExactly(missing);
    assertThat(waiting.retarget(missing, QUEUE, 1, true, audit).applied()).hasSize(1);
    assertThat(waiting.retarget(missing, QUEUE, 1, false, audit).applied()).hasSize(1);
    assertThat(waiting.deadLetter(missing, 10, false, audit).applied()).hasSize(1);
  }

  // ---- the owner's helpers

  /** The owner's own store connection, for the work that sets a drill up. */
  private final class OwnerStore implements AutoCloseable {
    private final JdbcConnectionProvider connections = Stores.connections(owner, tables);

    SqlExecutor executor() {
      return JdbcExecutor.of(connections);
    }

    @Override
    public void close() {
      connections.close();
    }
  }

  private static Clock fixed(Instant at) {
    return Clock.fixed(at, ZoneOffset.UTC);
  }

  private static OutboxEvent event(String type, String aggregateId) {
    return OutboxEvent.builder()
        .aggregateType(type)
        .aggregateId(aggregateId)
        .eventType("grants.checked")
        .payload("{\"n\":1}")
        .build();
  }

  private static void append(TestDatabase as, OutboxWriter writer, OutboxEvent... events) {
    try (Connection c = as.open()) {
      c.setAutoCommit(false);
      try {
        writer.appendAll(c, List.of(events));
        c.commit();
      } catch (RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The writer's refusal of {@code event}; any other failure passes on. */
  private static DuplicateIdempotencyKeyException refused(
      TestDatabase as, OutboxWriter writer, OutboxEvent event) {
    try {
      append(as, writer, event);
    } catch (DuplicateIdempotencyKeyException e) {
      return e;
    }
    throw new AssertionError("the writer took idempotency key " + event.idempotencyKey());
  }

  private long count(String table) {
    try (Connection c = owner.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void sql(String... statements) {
    try (Connection c = owner.open();
        Statement st = c.createStatement()) {
      for (String s : statements) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
