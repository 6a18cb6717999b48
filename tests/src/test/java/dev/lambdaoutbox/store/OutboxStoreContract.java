package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.Completion.Result;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Defer;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Release;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.OutboxStoreException;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.junit.jupiter.api.Test;

/**
 * What every {@link OutboxStore} must do, against a real database, whatever carries its SQL. Rows
 * are written with the real {@link OutboxWriter} over JDBC, as an application writes them; each
 * subclass names the database and the executor the store runs on (JDBC to PostgreSQL or MariaDB,
 * the Data API to PostgreSQL, JDBC to MariaDB with the Data API's result budget). Times are fixed
 * instants passed to the store, so leases run out without sleeping. The tests are final: every
 * backend runs the same ones.
 */
abstract class OutboxStoreContract extends StoreTestBase {
  static final Duration RETENTION = Duration.ofDays(7);

  /** SQL that renames a table (to make the dead-letter statement fail). */
  String renameTableSql(String from, String to) {
    return "ALTER TABLE " + from + " RENAME TO " + to;
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

  static List<UUID> ids(Claim claim) {
    assertThat(claim.unreadable()).as("unreadable rows").isEmpty();
    return claim.messages().stream().map(OutboxMessage::id).toList();
  }

  static List<Result> results(CompletionReport report) {
    return report.completions().stream().map(Completion::result).toList();
  }

  // ---- claim

  @Test
  final void claim_returnsDueRowsOldestFirst_uptoTheLimit() {
    UUID second = append(T0.plusSeconds(2));
    UUID first = append(T0);
    UUID third = append(T0.plusSeconds(3));
    UUID firstTwin = append(T0.plusSeconds(1));

    Claim claimed = store().claim("a", 3, T0.plusSeconds(10), LEASE);

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

    OutboxMessage m = store().claim("a", 10, T0, LEASE).messages().get(0);

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
    assertThat(ids(other.claim("other", 10, T0.plusSeconds(2), LEASE))).isEmpty();
    assertThat(ids(other.claim("other", 10, T0.plusSeconds(30), LEASE))).isEmpty();

    // The owner crashed between claim and publish: after the lease the rows are claimed again.
    Claim reclaimed = other.claim("other", 10, T0.plusSeconds(31), LEASE);
    assertThat(ids(reclaimed)).containsExactlyElementsOf(written);
    assertThat(rows.message(written.get(0)).get("locked_by")).isEqualTo("other");
  }

  @Test
  final void claim_leavesSentRowsAndDeadLettersAlone() {
    UUID id = append(T0);
    OutboxStore retaining = retainingStore();
    retaining.claim("a", 10, T0, LEASE);
    retaining.complete("a", List.of(new Published(id)), T0.plusSeconds(1));

    assertThat(ids(store().claim("b", 10, T0.plus(Duration.ofDays(1)), LEASE))).isEmpty();
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
      Claim batch = store.claim("a", 10, T0.plusSeconds(10), LEASE);
      if (batch.messages().isEmpty()) {
        break;
      }
      long bytes = batch.messages().stream().mapToLong(m -> m.payload().length()).sum();
      assertThat(batch.messages().size() == 1 || bytes <= budget)
          .as("%d rows of %d bytes against a budget of %d", batch.messages().size(), bytes, budget)
          .isTrue();
      claimed.addAll(ids(batch));
    }

    assertThat(claimed).containsExactlyElementsOf(written);
  }

  @Test
  final void claim_ofRowsOverTheDataApisRowLimit_returnsTheirPayloadsAndHeadersWhole_byteForByte() {
    String emoji = "\uD83D\uDE00";
    Map<String, String> largeHeaders = new LinkedHashMap<>();
    for (int i = 0; i < 5; i++) {
      largeHeaders.put("h" + i, emoji.repeat(2_000) + "-" + i); // 40 KB of headers in all
    }
    List<OutboxEvent> events =
        List.of(
            event("tenth").toBuilder().payload("{\"n\":\"" + "x".repeat(60) + "\"}").build(),
            event("hundred").toBuilder().payload("{\"b\":\"" + "x".repeat(100_000) + "\"}").build(),
            event("row").toBuilder().payload("{\"b\":\"" + emoji.repeat(16_000) + "\"}").build(),
            event("limit").toBuilder()
                .payload(
                    "{\"b\":\"" + emoji.repeat(64_000) + "\",\"t\":\"" + "é".repeat(500) + "\"}")
                .build(),
            event("headers").toBuilder().headers(largeHeaders).build(),
            event("both").toBuilder()
                .payload("{\"b\":\"" + "x".repeat(70_000) + "\"}")
                .headers(largeHeaders)
                .build());
    for (int i = 0; i < events.size(); i++) {
      append(T0.plusSeconds(i), events.get(i));
    }
    OutboxStore store = OutboxStore.builder(newExecutor()).tables(tables).build();

    Map<UUID, OutboxMessage> claimed = new LinkedHashMap<>();
    for (int round = 0; round < 6 && claimed.size() < events.size(); round++) {
      store
          .claim("a", 10, T0.plusSeconds(10), LEASE)
          .messages()
          .forEach(m -> claimed.put(m.id(), m));
    }

    assertThat(claimed.keySet())
        .containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
    for (OutboxEvent e : events) {
      OutboxMessage m = claimed.get(e.id());
      assertThat(m.payload()).as(e.aggregateId()).isEqualTo(e.payload());
      assertThat(m.payloadBytes()).isEqualTo(e.payload().getBytes(StandardCharsets.UTF_8).length);
      assertThat(m.headers()).as(e.aggregateId()).isEqualTo(e.headers());
    }
  }

  @Test
  final void claim_ofARowOverEveryLimit_neverFails_saysItsStoredSize_andTheRowsBehindItFlow() {
    OutboxEvent huge = event("huge");
    OutboxEvent next = event("next");
    append(T0, huge);
    append(T0.plusSeconds(1), next);
    String payload = writeHugePayload(tables.messages(), huge.id());
    SqlExecutor executor = newExecutor();
    long budget = executor.inTransaction("read the result budget", SqlSession::maxResultBytes);
    OutboxStore store = OutboxStore.builder(executor).tables(tables).build();

    List<OutboxMessage> claimed = new ArrayList<>();
    for (int round = 0; round < 3 && claimed.size() < 2; round++) {
      claimed.addAll(store.claim("a", 10, T0.plusSeconds(1), LEASE).messages());
    }

    // The row comes back with its stored size, so the poller dead-letters it as too large; where
    // one result is bounded, its payload is a prefix of at most 256 KiB, cut between characters.
    assertThat(claimed).extracting(OutboxMessage::id).containsExactly(huge.id(), next.id());
    assertClaimedWithStoredSizes(claimed, payload, budget);
    store.complete("a", List.of(new DeadLetter(huge.id(), "TooLarge", "1.5 MiB")), T0);
    assertThat(rows.deadLetter(huge.id()).get("payload")).isEqualTo(payload);
  }

  // ---- complete: published

  @Test
  final void complete_published_deletesTheRows() {
    List<UUID> ids = List.of(append(T0), append(T0.plusSeconds(1)));
    OutboxStore store = store();
    store.claim("a", 10, T0.plusSeconds(1), LEASE);

    CompletionReport report =
        store.complete(
            "a", List.of(new Published(ids.get(0)), new Published(ids.get(1))), T0.plusSeconds(2));

    assertThat(results(report)).containsExactly(Result.PUBLISHED, Result.PUBLISHED);
    assertThat(rows.count(tables.messages(), "1 = 1")).isZero();
  }

  @Test
  final void complete_published_withRetention_marksSent_andPurgeRemovesOnlyRowsPastRetention() {
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

    Instant now = T0.plus(RETENTION).plusSeconds(50);
    assertThat(store.purge(now, Duration.ofSeconds(10)))
        .isEqualTo(new PurgeReport(Map.of("sentRows", 5L), true));
    assertThat(store.purge(now, Duration.ofSeconds(10)))
        .isEqualTo(new PurgeReport(Map.of("sentRows", 0L), true));
    assertThat(rows.count(tables.messages(), "status = 'SENT'")).isEqualTo(2);
    assertThat(rows.message(recent.get(0))).isNotNull();
    assertThat(old).allSatisfy(id -> assertThat(rows.message(id)).isNull());
  }

  @Test
  final void purge_leavesPendingRowsAlone() {
    UUID pending = append(T0);

    assertThat(retainingStore().purge(T0.plus(Duration.ofDays(30)), Duration.ofSeconds(10)).total())
        .isZero();
    assertThat(rows.message(pending)).isNotNull();
  }

  @Test
  final void purge_withoutRetention_hasNothingToDo() {
    assertThat(store().purge(T0, Duration.ofSeconds(10)))
        .isEqualTo(new PurgeReport(Map.of(), true));
  }

  // ---- complete: retry

  @Test
  final void complete_retry_countsTheFailure_andKeepsTheFirstFailureTime() {
    UUID id = append(T0);
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);
    String longReason = "x".repeat(5000);

    CompletionReport report =
        store.complete(
            "a",
            List.of(new Retry(id, "Throttling", longReason, T0.plusSeconds(60))),
            T0.plusSeconds(1));

    assertThat(results(report)).containsExactly(Result.RETRIED);
    Map<String, Object> row = rows.message(id);
    assertThat(((Number) row.get("retry_count")).intValue()).isEqualTo(1);
    assertThat(TestRows.instant(row, "next_attempt_at")).isEqualTo(T0.plusSeconds(60));
    assertThat(row.get("last_error_code")).isEqualTo("Throttling");
    assertThat((String) row.get("last_error_reason")).hasSize(4000);
    assertThat(TestRows.instant(row, "first_failed_at")).isEqualTo(T0.plusSeconds(1));
    assertThat(row.get("locked_by")).isNull();
    assertThat(row.get("locked_until")).isNull();
    assertThat(row.get("status")).isEqualTo("PENDING");

    assertThat(ids(store.claim("a", 10, T0.plusSeconds(59), LEASE))).isEmpty();
    OutboxMessage again = store.claim("b", 10, T0.plusSeconds(60), LEASE).messages().get(0);
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

    CompletionReport report =
        store.complete(
            "b",
            List.of(new DeadLetter(id, "InvalidParameter", "topic does not exist")),
            T0.plusSeconds(11));

    assertThat(results(report)).containsExactly(Result.DEAD_LETTERED);
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
  final void
      complete_deadLetter_whenTheIdIsADeadLetterAlready_keepsTheOlderInTheAudit_andReplacesIt() {
    UUID id = append(T0, event("first")).get(0);
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);
    store.complete("a", List.of(new DeadLetter(id, "NotFound", "no topic")), T0.plusSeconds(1));
    append(T0.plusSeconds(2), event("again").toBuilder().id(id).build()); // the id, reused
    store.claim("b", 10, T0.plusSeconds(2), LEASE);

    CompletionReport report =
        store.complete(
            "b", List.of(new DeadLetter(id, "InvalidParameter", "bad")), T0.plusSeconds(4));

    assertThat(results(report)).containsExactly(Result.DEAD_LETTERED);
    assertThat(report.superseded())
        .containsExactly(new SupersededDeadLetter(id, T0.plusSeconds(1), T0.plusSeconds(4)));
    Map<String, Object> dead = rows.deadLetter(id);
    assertThat(dead.get("aggregate_id")).isEqualTo("again");
    assertThat(dead.get("error_code")).isEqualTo("InvalidParameter");
    assertThat(auditTrail(id))
        .singleElement()
        .satisfies(a -> UnreadableRowsContractTest.assertSuperseded(a, "first", "b"));
  }

  @Test
  final void complete_deadLetterWhoseLeaseWasTaken_leavesTheOlderDeadLetterOfItsIdAlone() {
    UUID id = append(T0, event("first")).get(0);
    OutboxStore slow = store();
    slow.claim("a", 10, T0, LEASE);
    slow.complete("a", List.of(new DeadLetter(id, "NotFound", "no topic")), T0.plusSeconds(1));
    append(T0.plusSeconds(2), event("again").toBuilder().id(id).build());
    slow.claim("slow", 10, T0.plusSeconds(2), LEASE);
    store().claim("fast", 10, T0.plusSeconds(40), LEASE);

    CompletionReport report =
        slow.complete("slow", List.of(new DeadLetter(id, "Bad", "late")), T0.plusSeconds(41));

    assertThat(report.completions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.result()).isEqualTo(Result.LEASE_LOST);
              assertThat(c.heldBy()).isEqualTo("fast");
            });
    assertThat(report.superseded()).isEmpty();
    assertThat(rows.deadLetter(id).get("aggregate_id")).isEqualTo("first");
    assertThat(auditTrail(id)).isEmpty();
    assertThat(rows.message(id).get("locked_by")).isEqualTo("fast");
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
    assertThat(results(store.complete("a", List.of(new Published(published)), T0.plusSeconds(3))))
        .containsExactly(Result.PUBLISHED);
  }

  // ---- leases taken over

  @Test
  final void complete_fromAnOwnerWhoseLeaseWasTaken_reportsPerRowWhatWasNotApplied_andWhoHoldsIt() {
    UUID retried = append(T0);
    UUID dead = append(T0.plusSeconds(1));
    UUID deferred = append(T0.plusSeconds(2));
    UUID publishedByOther = append(T0.plusSeconds(3));
    UUID publishedLate = append(T0.plusSeconds(4));
    OutboxStore slow = store();
    OutboxStore fast = store();
    slow.claim("slow", 10, T0.plusSeconds(4), LEASE);
    List<OutboxMessage> taken = fast.claim("fast", 10, T0.plusSeconds(40), LEASE).messages();
    assertThat(taken).hasSize(5);
    fast.complete("fast", List.of(new Published(publishedByOther)), T0.plusSeconds(41));

    CompletionReport report =
        slow.complete(
            "slow",
            List.of(
                new Retry(retried, "Throttling", "late", T0.plusSeconds(100)),
                new DeadLetter(dead, "Bad", "late"),
                new Defer(deferred, "ConnectionError", "down", T0.plusSeconds(100)),
                new Published(publishedByOther),
                new Published(publishedLate)),
            T0.plusSeconds(42));

    List<Completion> rowsReported = report.completions();
    assertThat(rowsReported)
        .extracting(Completion::result)
        .containsExactly(
            Result.LEASE_LOST,
            Result.LEASE_LOST,
            Result.LEASE_LOST,
            Result.LEASE_LOST,
            Result.LEASE_LOST);
    assertThat(rowsReported.subList(0, 3))
        .allSatisfy(
            c -> {
              assertThat(c.heldBy()).isEqualTo("fast");
              assertThat(c.gone()).isFalse();
            });
    assertThat(rowsReported.get(3).gone()).as("published by the other poller").isTrue();
    assertThat(rowsReported.get(3).heldBy()).isNull();
    Map<String, Object> row = rows.message(retried);
    assertThat(row.get("locked_by")).isEqualTo("fast");
    assertThat(((Number) row.get("retry_count")).intValue()).isZero();
    assertThat(rows.message(dead)).isNotNull();
    assertThat(rows.deadLetter(dead)).isNull();
    assertThat(rows.message(deferred).get("locked_by")).isEqualTo("fast");
    assertThat(rowsReported.get(4).heldBy()).isEqualTo("fast");
    assertThat(rows.message(publishedLate).get("locked_by"))
        .as("a late publish does not settle a row another owner holds")
        .isEqualTo("fast");
  }

  /**
   * An invocation sends a row, then outlasts its lease; another claims the row and dead-letters it,
   * and an operator replays it. The first invocation's late "published" must not delete the
   * replayed row: it was sent before the replay was asked for, and the replay would be lost.
   */
  @Test
  final void complete_latePublishOfARowReplayedMeanwhile_leavesTheReplayedRowToBeSent() {
    UUID id = append(T0);
    OutboxStore slow = store();
    OutboxStore fast = store();
    slow.claim("slow", 10, T0, LEASE);
    fast.claim("fast", 10, T0.plusSeconds(40), LEASE);
    fast.complete("fast", List.of(new DeadLetter(id, "Bad", "refused")), T0.plusSeconds(41));
    DeadLetterStore deadLetters = DeadLetterStore.builder(newExecutor()).tables(tables).build();
    deadLetters.replay(List.of(id), null, false, new AuditInfo("req-1", "alice", "fixed"));

    CompletionReport report = slow.complete("slow", List.of(new Published(id)), T0.plusSeconds(42));

    Completion late = report.completions().get(0);
    assertThat(late.result()).isEqualTo(Result.LEASE_LOST);
    assertThat(late.gone()).isFalse();
    assertThat(late.heldBy()).as("the replayed row waits to be claimed").isNull();
    assertThat(rows.message(id)).as("the replayed row").isNotNull();
    assertThat(rows.deadLetter(id)).isNull();
    Instant due = TestRows.instant(rows.message(id), "next_attempt_at");
    assertThat(fast.claim("fast-2", 10, due.plusSeconds(1), LEASE).messages())
        .extracting(OutboxMessage::id)
        .containsExactly(id);
  }

  /**
   * A late publish of a row its owner still holds, lease run out and nobody else took it, applies.
   */
  @Test
  final void complete_publishAfterTheLeaseRanOutWithNobodyElse_isApplied() {
    UUID id = append(T0);
    OutboxStore store = store();
    store.claim("slow", 10, T0, LEASE);

    CompletionReport report =
        store.complete("slow", List.of(new Published(id)), T0.plus(LEASE).plusSeconds(30));

    assertThat(results(report)).containsExactly(Result.PUBLISHED);
    assertThat(rows.message(id)).isNull();
  }

  @Test
  final void complete_mixedOutcomes_areCountedByKind() {
    UUID a = append(T0);
    UUID b = append(T0.plusSeconds(1));
    UUID c = append(T0.plusSeconds(2));
    OutboxStore store = store();
    store.claim("o", 10, T0.plusSeconds(2), LEASE);

    CompletionReport report =
        store.complete(
            "o",
            List.of(
                new Published(a),
                new Retry(b, "Throttling", "later", T0.plusSeconds(60)),
                new DeadLetter(c, "Bad", "never")),
            T0.plusSeconds(3));

    assertThat(results(report))
        .containsExactly(Result.PUBLISHED, Result.RETRIED, Result.DEAD_LETTERED);
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
                    List<OutboxMessage> claimed = store.claim(owner, 250, now, LEASE).messages();
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
                    skipped.addAndGet(
                        store.complete(owner, outcomes, now).count(Result.LEASE_LOST));
                  }
                }));
      }
      for (Future<?> f : pollers) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    // A claimer stops at its first empty claim. On MariaDB, SKIP LOCKED also skips rows that a
    // concurrent completion is still deleting, so under load all four may stop early; as with the
    // poller, the next run takes what they left. Every row must still go exactly once.
    OutboxStore nextRun = store();
    for (List<OutboxMessage> claimed = nextRun.claim("next-run", 250, now, LEASE).messages();
        !claimed.isEmpty();
        claimed = nextRun.claim("next-run", 250, now, LEASE).messages()) {
      List<DeliveryOutcome> outcomes = new ArrayList<>(claimed.size());
      for (OutboxMessage m : claimed) {
        if (!published.add(m.id())) {
          duplicates.incrementAndGet();
        }
        outcomes.add(new Published(m.id()));
      }
      skipped.addAndGet(nextRun.complete("next-run", outcomes, now).count(Result.LEASE_LOST));
    }

    assertThat(duplicates).hasValue(0);
    assertThat(skipped).hasValue(0);
    assertThat(published).hasSize(total).containsAll(written);
    assertThat(rows.count(tables.messages(), "1 = 1")).isZero();
  }

  // ---- deferrals

  @Test
  final void complete_defer_waitsUntilTheGivenTime_keepsTheRetryCount_andSaysWhy() {
    UUID id = append(T0);
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);
    store.complete(
        "a", List.of(new Retry(id, "Throttling", "slow", T0.plusSeconds(5))), T0.plusSeconds(1));
    store.claim("b", 10, T0.plusSeconds(5), LEASE);

    CompletionReport report =
        store.complete(
            "b",
            List.of(new Defer(id, "ConnectionError", "destination down", T0.plusSeconds(65))),
            T0.plusSeconds(6));

    assertThat(results(report)).containsExactly(Result.DEFERRED);
    Map<String, Object> row = rows.message(id);
    assertThat(((Number) row.get("retry_count")).intValue()).as("no retry spent").isEqualTo(1);
    assertThat(TestRows.instant(row, "next_attempt_at")).isEqualTo(T0.plusSeconds(65));
    assertThat(row.get("last_error_code")).isEqualTo("ConnectionError");
    assertThat(row.get("last_error_reason")).isEqualTo("destination down");
    assertThat(row.get("locked_by")).isNull();
    assertThat(row.get("locked_until")).isNull();
    assertThat(TestRows.instant(row, "first_failed_at")).isEqualTo(T0.plusSeconds(1));
    assertThat(store.claim("c", 10, T0.plusSeconds(64), LEASE).messages()).isEmpty();
    assertThat(store.claim("c", 10, T0.plusSeconds(65), LEASE).messages()).hasSize(1);
  }

  @Test
  final void complete_release_makesTheRowDueAtOnce_keepingEverythingElse() {
    UUID id = append(T0);
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);
    store.complete(
        "a", List.of(new Retry(id, "Throttling", "slow", T0.plusSeconds(5))), T0.plusSeconds(1));
    store.claim("b", 10, T0.plusSeconds(5), LEASE);

    CompletionReport report = store.complete("b", List.of(new Release(id)), T0.plusSeconds(6));

    assertThat(results(report)).containsExactly(Result.DEFERRED);
    Map<String, Object> row = rows.message(id);
    assertThat(((Number) row.get("retry_count")).intValue()).isEqualTo(1);
    assertThat(TestRows.instant(row, "next_attempt_at")).isEqualTo(T0.plusSeconds(6));
    assertThat(row.get("last_error_code")).isEqualTo("Throttling");
    assertThat(row.get("last_error_reason")).isEqualTo("slow");
    assertThat(row.get("locked_by")).isNull();
    assertThat(store.claim("c", 10, T0.plusSeconds(6), LEASE).messages()).hasSize(1);
  }

  // ---- events due at a time

  /**
   * Written with the database's own clock, as an application writes: the INSERT adds the delay to
   * the database's time, so the row is due 30 s after {@code created_at} whatever the host's clock
   * says; claims at instants around that time, without waiting for it.
   */
  @Test
  final void claim_ofAnEventDueIn30s_onTheDatabasesClock_takesNothingBeforeItsTime() {
    UUID id =
        append(
                OutboxWriter.builder().tables(tables),
                event("order-due").toBuilder().delay(Duration.ofSeconds(30)).build())
            .get(0);
    Map<String, Object> row = rows.message(id);
    Instant written = (Instant) row.get("created_at");
    assertThat(row.get("next_attempt_at")).isEqualTo(written.plusSeconds(30));
    assertThat(row.get("not_before")).isEqualTo(written.plusSeconds(30));
    assertThat(((Number) row.get("retry_count")).intValue()).isZero();
    OutboxStore store = store();

    assertThat(store.claim("a", 10, written, LEASE).isEmpty()).isTrue();
    assertThat(store.claim("a", 10, written.plusSeconds(29), LEASE).isEmpty()).isTrue();
    assertThat(store.countDue(written.plusSeconds(29), 10)).isZero();
    assertThat(ids(store.claim("a", 10, written.plusSeconds(30), LEASE))).containsExactly(id);
  }

  /**
   * A time given as an instant is compared with the database's clock; one already past means now.
   * Rows due at once written in the same statement stay due at once.
   */
  @Test
  final void claim_ofEventsNotBeforeATime_takesEachFromItsTime_andAPastTimeMeansNow() {
    List<UUID> written =
        append(
            T0,
            event("order-later").toBuilder()
                .notBefore(T0.plusSeconds(30))
                .idempotencyKey("later-1")
                .build(),
            event("order-past").toBuilder().notBefore(T0.minusSeconds(3600)).build(),
            event("order-now"));

    OutboxStore store = store();
    assertThat(ids(store.claim("a", 10, T0, LEASE)))
        .containsExactly(written.get(1), written.get(2));
    store.complete("a", List.of(new Published(written.get(1)), new Published(written.get(2))), T0);
    assertThat(store.claim("a", 10, T0.plusSeconds(29), LEASE).isEmpty()).isTrue();
    assertThat(ids(store.claim("a", 10, T0.plusSeconds(31), LEASE)))
        .containsExactly(written.get(0));
  }

  /**
   * A row waiting for its time is not late: the age counts from its time, and goes on counting from
   * it when the row then backs off. A row due at once beside it counts as ever.
   */
  @Test
  final void backlog_oldestUnpublished_countsARowWaitingForItsTimeFromThatTime() {
    UUID waiting =
        append(T0, event("order-due").toBuilder().delay(Duration.ofHours(1)).build()).get(0);
    OutboxStore store = store();

    assertThat(store.backlog(T0.plusSeconds(600)).oldestUnpublishedAge()).isZero();
    UUID due = append(T0.plusSeconds(600));
    assertThat(store.backlog(T0.plusSeconds(660)).oldestUnpublishedAge())
        .isEqualTo(Duration.ofSeconds(60));
    rows.execute("DELETE FROM " + tables.messages() + " WHERE id = '" + due + "'");
    assertThat(store.backlog(T0.plusSeconds(3605)).oldestUnpublishedAge())
        .isEqualTo(Duration.ofSeconds(5));

    store.claim("a", 10, T0.plusSeconds(3605), LEASE);
    store.complete(
        "a",
        List.of(new Retry(waiting, "Throttling", "later", T0.plusSeconds(7200))),
        T0.plusSeconds(3606));
    assertThat(store.backlog(T0.plusSeconds(3660)).oldestUnpublishedAge())
        .as("backing off after its time")
        .isEqualTo(Duration.ofSeconds(60));
  }

  // ---- backlog

  @Test
  final void backlog_oldestUnpublished_countsRowsWhateverTheyWaitFor() {
    OutboxStore store = store();
    assertThat(store.backlog(T0)).isEqualTo(new Backlog(Duration.ZERO, 0, 0, 0, 0, 0, 0, 0));

    UUID backingOff = append(T0);
    UUID leased = append(T0.plusSeconds(5));
    UUID dying = append(T0.plusSeconds(6));
    UUID deferred = append(T0.plusSeconds(7));
    append(T0.plusSeconds(500));
    store.claim("a", 10, T0.plusSeconds(7), LEASE);
    store.complete(
        "a",
        List.of(
            new Retry(backingOff, "Throttling", "later", T0.plusSeconds(3600)),
            new DeadLetter(dying, "Bad", "bad"),
            new Defer(deferred, "ConnectionError", "down", T0.plusSeconds(3600))),
        T0.plusSeconds(8));

    // At +10 s nothing is due: one row backs off, one is leased, one deferred, one not yet due.
    assertThat(store.claim("probe", 10, T0.plusSeconds(10), Duration.ofMillis(1)).messages())
        .isEmpty();
    assertThat(store.backlog(T0.plusSeconds(10)).oldestUnpublishedAge())
        .isEqualTo(Duration.ofSeconds(10));
    rows.execute("DELETE FROM " + tables.messages() + " WHERE id = '" + backingOff + "'");
    assertThat(store.backlog(T0.plusSeconds(65)).oldestUnpublishedAge())
        .as("the leased row")
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(store.backlog(T0.plusSeconds(65)).deadLetters()).isEqualTo(1);
    assertThat(rows.message(leased)).isNotNull();
  }

  @Test
  final void backlog_ignoresRowsKeptAsSent() {
    OutboxStore retaining = retainingStore();
    UUID id = append(T0);
    retaining.claim("a", 10, T0, LEASE);
    retaining.complete("a", List.of(new Published(id)), T0.plusSeconds(1));

    assertThat(retaining.backlog(T0.plus(Duration.ofDays(1))).oldestUnpublishedAge()).isZero();
  }

  @Test
  final void backlog_deadLetterCount_stopsJustAboveTheCap() throws Exception {
    try (Connection c = database().open()) {
      new dev.lambdaoutbox.bench.HistoryLoader(c, database().dialect(), tables)
          .deadLetters(Backlog.DEAD_LETTER_COUNT_CAP + 50, T0);
    }

    Backlog backlog = store().backlog(T0);

    assertThat(backlog.deadLetters()).isEqualTo(Backlog.DEAD_LETTER_COUNT_CAP + 1);
    assertThat(backlog.deadLettersCapped()).isTrue();
  }

  // ---- destination health

  static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:orders";
  static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/audit";

  @Test
  final void markDown_insertsOnce_theSecondPollerKeepsTheFirstsSchedule() {
    DestinationHealthStore first = store().destinationHealth();
    DestinationHealthStore second = store().destinationHealth();

    DestinationHealthStore.MarkedDown a =
        first.markDown(
            TOPIC,
            DestinationState.UNAVAILABLE,
            "ConnectionError",
            "refused",
            T0,
            T0.plusSeconds(5));
    DestinationHealthStore.MarkedDown b =
        second.markDown(
            TOPIC,
            DestinationState.MISCONFIGURED,
            "NotFound",
            "no topic",
            T0.plusSeconds(1),
            T0.plusSeconds(6));

    assertThat(a.inserted()).isTrue();
    assertThat(b.inserted()).isFalse();
    assertThat(b.health()).isEqualTo(a.health());
    assertThat(a.health())
        .isEqualTo(
            new DestinationHealth(
                TOPIC,
                DestinationState.UNAVAILABLE,
                "ConnectionError",
                "refused",
                T0,
                0,
                T0.plusSeconds(5),
                T0));
    assertThat(first.all()).containsOnlyKeys(TOPIC);
  }

  @Test
  final void claimProbe_whenDue_exactlyOneOfTwoPollersWinsIt() {
    DestinationHealthStore a = store().destinationHealth();
    DestinationHealthStore b = store().destinationHealth();
    a.markDown(QUEUE, DestinationState.UNAVAILABLE, "Timeout", "slow", T0, T0.plusSeconds(5));

    assertThat(a.claimProbe(QUEUE, T0.plusSeconds(4), T0.plusSeconds(14)))
        .as("not due yet")
        .isFalse();
    boolean first = a.claimProbe(QUEUE, T0.plusSeconds(5), T0.plusSeconds(15));
    boolean second = b.claimProbe(QUEUE, T0.plusSeconds(5), T0.plusSeconds(15));

    assertThat(List.of(first, second)).containsExactly(true, false);
    assertThat(b.all().get(QUEUE).nextProbeAt()).isEqualTo(T0.plusSeconds(15));
    assertThat(a.claimProbe(TOPIC, T0, T0.plusSeconds(5))).as("not marked down").isFalse();
  }

  @Test
  final void probeFailed_countsIt_keepsTheError_andMayTurnItMisconfigured() {
    DestinationHealthStore health = store().destinationHealth();
    health.markDown(
        TOPIC, DestinationState.UNAVAILABLE, "ConnectionError", "refused", T0, T0.plusSeconds(5));
    health.claimProbe(TOPIC, T0.plusSeconds(5), T0.plusSeconds(15));

    DestinationHealthStore.ProbeFailed failed =
        health
            .probeFailed(
                TOPIC,
                DestinationState.MISCONFIGURED,
                "NotFound",
                "Topic does not exist",
                T0.plusSeconds(6))
            .orElseThrow();

    assertThat(failed.before().state()).isEqualTo(DestinationState.UNAVAILABLE);
    assertThat(failed.after())
        .isEqualTo(
            new DestinationHealth(
                TOPIC,
                DestinationState.MISCONFIGURED,
                "NotFound",
                "Topic does not exist",
                T0,
                1,
                T0.plusSeconds(15),
                T0.plusSeconds(6)));
    assertThat(health.probeFailed(QUEUE, DestinationState.UNAVAILABLE, "x", "y", T0)).isEmpty();
  }

  @Test
  final void markHealthy_deletesTheRow_andTheBacklogCountsWhatIsDown() {
    OutboxStore store = store();
    DestinationHealthStore health = store.destinationHealth();
    health.markDown(
        TOPIC, DestinationState.MISCONFIGURED, "NotFound", "gone", T0, T0.plusSeconds(5));
    health.markDown(QUEUE, DestinationState.UNAVAILABLE, "Timeout", "slow", T0, T0.plusSeconds(5));

    assertThat(store.backlog(T0.plusSeconds(1)))
        .extracting(Backlog::destinationsDown, Backlog::destinationsMisconfigured)
        .containsExactly(2, 1);
    assertThat(health.markHealthy(TOPIC)).isTrue();
    assertThat(health.markHealthy(TOPIC)).isFalse();
    assertThat(store.backlog(T0.plusSeconds(1)))
        .extracting(Backlog::destinationsDown, Backlog::destinationsMisconfigured)
        .containsExactly(1, 0);
    assertThat(health.all()).containsOnlyKeys(QUEUE);
  }

  @Test
  final void aRowNobodyProbesForLong_isStale_notCounted_andForgotten() {
    OutboxStore store = store();
    DestinationHealthStore health = store.destinationHealth();
    health.markDown(QUEUE, DestinationState.UNAVAILABLE, "Timeout", "slow", T0, T0.plusSeconds(5));
    Instant later = T0.plusSeconds(5).plus(DestinationHealthStore.STALE_AFTER).plusSeconds(1);

    assertThat(store.backlog(later))
        .extracting(Backlog::destinationsDown, Backlog::staleDestinations)
        .containsExactly(0, 1);
    assertThat(health.forgetStale(later.minusSeconds(2))).as("not stale yet").isZero();
    assertThat(health.forgetStale(later)).isEqualTo(1);
    assertThat(health.all()).isEmpty();
  }

  @Test
  final void destinationsLongerThanAnIndexKey_areKeyedByTheirHash() {
    String longQueue = QUEUE + "-" + "x".repeat(1900);
    DestinationHealthStore health = store().destinationHealth();

    health.markDown(
        longQueue, DestinationState.UNAVAILABLE, "Timeout", "slow", T0, T0.plusSeconds(5));

    assertThat(health.all()).containsOnlyKeys(longQueue);
    assertThat(health.markHealthy(longQueue)).isTrue();
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

  @Test
  void wakeLingerLease_isHeldByOneOwnerAtATime_renewedByIt_andFreeOnceGivenBackOrRunOut() {
    OutboxStore store = store();
    String lease = OutboxStore.WAKE_LINGER_LEASE;
    Instant term = T0.plusSeconds(3);

    assertThat(store.holdLease(lease, "poller:a", T0, term)).as("free: a takes it").isTrue();
    assertThat(store.holdLease(lease, "poller:b", T0.plusSeconds(1), T0.plusSeconds(4)))
        .as("held by a: b may not")
        .isFalse();
    assertThat(store.holdLease(lease, "poller:a", T0.plusSeconds(2), T0.plusSeconds(5)))
        .as("a renews it, until +5 s")
        .isTrue();
    assertThat(store.holdLease(lease, "poller:b", T0.plusSeconds(4), T0.plusSeconds(7)))
        .as("renewed: still a's at +4 s")
        .isFalse();
    assertThat(store.releaseLease(lease, "poller:b", T0.plusSeconds(4)))
        .as("b cannot give back what a holds")
        .isFalse();
    assertThat(store.releaseLease(lease, "poller:a", T0.plusSeconds(4))).isTrue();
    assertThat(store.holdLease(lease, "poller:b", T0.plusSeconds(4), T0.plusSeconds(7)))
        .as("given back: b takes it at once")
        .isTrue();
    assertThat(store.holdLease(lease, "poller:c", T0.plusSeconds(7), T0.plusSeconds(10)))
        .as("b died holding it: c takes it once it ran out")
        .isTrue();
    assertThat(store.holdLease("no-such-lease", "poller:c", T0, term))
        .as("a lease without a row is never held")
        .isFalse();
    store.releaseLease(lease, "poller:c", T0.plusSeconds(7));
  }

  // ---- helpers

  List<AuditEntry> auditTrail(UUID deadLetterId) {
    return DeadLetterStore.builder(newExecutor()).tables(tables).build().auditTrail(deadLetterId);
  }

  OutboxStore retainingStore() {
    return OutboxStore.builder(newExecutor()).tables(tables).retention(RETENTION).build();
  }
}
