package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.testing.PoisonRows;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rows the poller cannot read, written with SQL ({@link PoisonRows}): a claim moves each to the
 * dead letters, every text column as stored, and goes on with the rest. Against a real database;
 * each subclass names it and what carries the store's SQL.
 */
abstract class UnreadableRowsContractTest extends StoreTestBase {
  @Test
  void claim_movesEachUnreadableRowToTheDeadLetters_asStored_andReturnsTheRest() {
    List<PoisonRows.Kind> kinds = PoisonRows.kinds(database().dialect());
    for (int i = 0; i < kinds.size(); i++) {
      PoisonRows.Kind kind = kinds.get(i);
      UUID id = append(T0.plusMillis(i), event("poison").idempotencyKey(kind.key()).build());
      PoisonRows.poison(database(), tables, id, kind);
    }
    List<UUID> good = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      good.add(append(T0.plusSeconds(1).plusMillis(i), event("good-" + i).build()));
    }
    Map<String, Map<String, String>> stored =
        PoisonRows.rowsAsText(database(), tables.messages(), "poison-", columns("id"));
    Instant now = T0.plusSeconds(5);

    Claim claim = store().claim("a", 1000, now, LEASE);

    assertThat(claim.messages()).extracting(OutboxMessage::id).containsExactlyElementsOf(good);
    assertThat(claim.unreadable())
        .extracting(UnreadableRow::column)
        .containsExactlyElementsOf(kinds.stream().map(PoisonRows.Kind::column).toList());
    Map<String, Map<String, String>> dead =
        PoisonRows.rowsAsText(
            database(),
            tables.deadLetters(),
            "poison-",
            columns("id", "attempts", "error_code", "error_reason"));
    assertThat(dead).hasSameSizeAs(kinds);
    for (PoisonRows.Kind kind : kinds) {
      Map<String, String> before = stored.get(kind.key());
      Map<String, String> after = dead.get(kind.key());
      assertThat(after).as(kind.name()).isNotNull();
      for (String column : PoisonRows.TEXT_COLUMNS) {
        assertThat(after.get(column)).as(kind.name() + ": " + column).isEqualTo(before.get(column));
      }
      assertThat(after.get("error_code")).isEqualTo(UnreadableRow.ERROR_CODE);
      assertThat(after.get("error_reason"))
          .as(kind.name())
          .startsWith("the " + kind.column() + " column ");
      assertThat(after.get("attempts")).isEqualTo("0");
      if (kind.column().equals("id")) {
        assertThat(UUID.fromString(after.get("id")).version()).isEqualTo(7);
        assertThat(after.get("error_reason")).contains("'" + before.get("id") + "'");
      } else {
        assertThat(after.get("id")).isEqualTo(before.get("id"));
      }
    }
    assertThat(rows.count(tables.messages(), "1 = 1")).isEqualTo(good.size());
    assertThat(rows.count(tables.messages(), "locked_by = 'a'")).isEqualTo(good.size());
  }

  @Test
  void claim_unreadableTimes_areDeadLetteredWithTheirTextInTheReason_andReadBackByOperators() {
    List<PoisonRows.Kind> kinds =
        PoisonRows.kinds(database().dialect()).stream().filter(PoisonRows.Kind::isTime).toList();
    for (PoisonRows.Kind kind : kinds) {
      UUID id = append(T0, event("poison").idempotencyKey(kind.key()).build());
      PoisonRows.poison(database(), tables, id, kind);
    }
    Instant now = T0.plusSeconds(5);

    Claim claim = store().claim("a", 100, now, LEASE);

    assertThat(claim.unreadable()).hasSameSizeAs(kinds);
    // What the operators' listing reads, every time column included.
    Map<UUID, dev.lambdaoutbox.store.model.deadletter.DeadLetter> listed = new HashMap<>();
    DeadLetterStore.builder(newExecutor())
        .tables(tables)
        .build()
        .list(DeadLetterFilter.all(), null, 100, 100)
        .entries()
        .forEach(e -> listed.put(e.deadLetter().id(), e.deadLetter()));
    for (UnreadableRow row : claim.unreadable()) {
      assertThat(row.reason()).contains("which is not a time");
      var deadLetter = listed.get(row.deadLetterId());
      assertThat(deadLetter.errorCode()).isEqualTo(UnreadableRow.ERROR_CODE);
      Instant replaced =
          switch (row.column()) {
            case "occurred_at" -> deadLetter.occurredAt();
            case "created_at" -> deadLetter.createdAt();
            default -> deadLetter.firstFailedAt();
          };
      assertThat(replaced).as(row.column()).isEqualTo(now);
    }
  }

  @Test
  void claim_whenAnUnreadableRowsIdIsAlreadyADeadLetter_keepsTheOlderOneInTheAudit() {
    UUID id = append(T0, event("first").build());
    OutboxStore store = store();
    store.claim("a", 10, T0, LEASE);
    store.complete("a", List.of(new DeadLetter(id, "NotFound", "no topic")), T0.plusSeconds(1));
    append(T0.plusSeconds(2), event("again").id(id).build()); // the application reuses the id
    PoisonRows.Kind kind = PoisonRows.kinds(database().dialect()).get(0);
    PoisonRows.poison(database(), tables, id, kind);

    Claim claim = store.claim("b", 10, T0.plusSeconds(3), LEASE);

    assertThat(claim.unreadable()).extracting(UnreadableRow::deadLetterId).containsExactly(id);
    assertThat(claim.superseded())
        .containsExactly(new SupersededDeadLetter(id, T0.plusSeconds(1), T0.plusSeconds(3)));
    Map<String, Object> dead = rows.deadLetter(id);
    assertThat(dead.get("error_code")).isEqualTo(UnreadableRow.ERROR_CODE);
    assertThat(dead.get("aggregate_id")).isEqualTo("again");
    List<AuditEntry> trail =
        DeadLetterStore.builder(newExecutor()).tables(tables).build().auditTrail(id);
    assertThat(trail).singleElement().satisfies(a -> assertSuperseded(a, "first", "b"));
  }

  static void assertSuperseded(AuditEntry audit, String aggregateId, String owner) {
    assertThat(audit.action()).isEqualTo(AuditEntry.SUPERSEDED);
    assertThat(audit.requestedBy()).isEqualTo(owner);
    assertThat(audit.snapshot().aggregateId()).isEqualTo(aggregateId);
    assertThat(audit.snapshot().errorCode()).isEqualTo("NotFound");
    assertThat(audit.snapshot().errorReason()).isEqualTo("no topic");
  }

  // ---- helpers

  private static List<String> columns(String... more) {
    return Stream.concat(Stream.of(more), PoisonRows.TEXT_COLUMNS.stream()).toList();
  }

  private static OutboxEvent.Builder event(String aggregateId) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(aggregateId)
        .eventType("order.created")
        .payload("{\"orderId\":\"" + aggregateId + "\"}")
        .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .destination("arn:aws:sns:us-east-1:123456789012:orders");
  }

  private UUID append(Instant at, OutboxEvent event) {
    return append(at, new OutboxEvent[] {event}).get(0);
  }
}
