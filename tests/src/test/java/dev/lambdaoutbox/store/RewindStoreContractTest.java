package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Published;
import dev.lambdaoutbox.store.model.DeliveryOutcome.Retry;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.rewind.RewindCursor;
import dev.lambdaoutbox.store.model.rewind.RewindPacing;
import dev.lambdaoutbox.store.model.rewind.RewindPreview;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import dev.lambdaoutbox.store.model.rewind.RewindStep;
import dev.lambdaoutbox.store.rewind.RewindStore;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.SqlWork;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Rewinds ({@link RewindStore}) against a real database: delivered (sent, retained) rows of a time
 * range copied as new PENDING rows to one destination, under the original event ids, in the order
 * they were sent, paced by due times, a step at a time from a cursor, each step audited; a dry run
 * counting and sampling without a change. Each subclass names its database and the executor (JDBC,
 * the Data API, JDBC with the Data API's result budget).
 */
abstract class RewindStoreContractTest extends StoreTestBase {
  /** The rewind's clock: two hours after the events were written. */
  static final Instant NOW = T0.plus(Duration.ofHours(2));

  static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/000000000000/billing-backfill";
  static final RewindRange HOUR =
      new RewindRange(T0, T0.plus(Duration.ofHours(1)), null, null, null);
  static final AuditInfo AUDIT = new AuditInfo("req-rw", "operator", "back-fill billing");

  RewindStore rewinds() {
    return RewindStore.over(newExecutor(), tables, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  /** The poller's store keeping sent rows, as with RetentionHours above 0. */
  OutboxStore sender() {
    return OutboxStore.builder(newExecutor())
        .tables(tables)
        .retention(Duration.ofHours(48))
        .build();
  }

  static OutboxEvent event(String aggregateId, String eventType, int n) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(aggregateId)
        .eventType(eventType)
        .payload("{\"order\":\"" + aggregateId + "\",\"n\":" + n + "}")
        .header("traceparent", "00-" + "0".repeat(31) + n + "-00f067aa0ba902b7-01")
        .build();
  }

  /**
   * Writes {@code events}, each in its own transaction a millisecond apart from T0, and delivers
   * them: each marked sent on its own at {@code T0 + sentSeconds[i]}.
   */
  List<UUID> delivered(List<OutboxEvent> events, long... sentSeconds) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      ids.addAll(append(T0.plusMillis(i), events.get(i)));
    }
    OutboxStore sender = sender();
    assertThat(sender.claim("p", 1_000, T0.plusSeconds(1), LEASE).messages()).hasSize(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      sender.complete("p", List.of(new Published(ids.get(i))), T0.plusSeconds(sentSeconds[i]));
    }
    return ids;
  }

  /** A copy as the outbox holds it. */
  record Copy(UUID id, UUID rewindOf, UUID rewindId, String destination, Instant due, long seq) {}

  /** The copies in the outbox, in seq order. */
  List<Copy> copies() {
    SqlDialect dialect = database().dialect();
    List<Copy> copies = new ArrayList<>();
    try (Connection c = database().open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, rewind_of, rewind_id, destination, next_attempt_at, seq FROM "
                    + tables.messages()
                    + " WHERE rewind_id IS NOT NULL AND status = 'PENDING' ORDER BY seq")) {
      while (rs.next()) {
        copies.add(
            new Copy(
                JdbcValues.getUuid(rs, "id", dialect),
                JdbcValues.getUuid(rs, "rewind_of", dialect),
                JdbcValues.getUuid(rs, "rewind_id", dialect),
                rs.getString("destination"),
                JdbcValues.getInstant(rs, "next_attempt_at", dialect),
                rs.getLong("seq")));
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return copies;
  }

  // ---- a step

  @Test
  void step_copiesTheMatchingSentRows_inSendOrder_underTheirEventIds_pacedByTheRate() {
    List<UUID> ids =
        delivered(
            List.of(
                event("a", "order.placed", 1),
                event("b", "order.placed", 2),
                event("a", "order.shipped", 3),
                event("c", "order.placed", 4),
                event("d", "order.placed", 5)),
            30,
            10,
            20,
            40,
            4_000); // past the hour
    RewindRange placed = new RewindRange(T0, T0.plusSeconds(3600), "order.placed", null, null);

    RewindStep step = rewinds().step(placed, QUEUE, new RewindPacing(4), 100, null, AUDIT);

    // b (sent at 10 s), a (30 s), c (40 s): not the shipped one, not d (sent after the hour)
    List<Copy> copies = copies();
    assertThat(copies)
        .extracting(Copy::rewindOf)
        .containsExactly(ids.get(1), ids.get(0), ids.get(3));
    assertThat(copies)
        .extracting(Copy::due)
        .containsExactly(NOW, NOW.plusMillis(250), NOW.plusMillis(500));
    // Each copy waits for its time (DueTimes): the age metric counts it from then, not as late.
    assertThat(
            rows.count(
                tables.messages(), "rewind_id IS NOT NULL AND not_before <> next_attempt_at"))
        .isZero();
    assertThat(copies).extracting(Copy::destination).containsOnly(QUEUE);
    assertThat(copies).extracting(Copy::rewindId).containsOnly(step.rewindId());
    assertThat(step.copied()).isEqualTo(3);
    assertThat(step.done()).isTrue();
    assertThat(step.lastDueAt()).isEqualTo(NOW.plusMillis(500));
    // The originals stay as they were: sent, kept for the retention period.
    assertThat(rows.count(tables.messages(), "status = 'SENT'")).isEqualTo(5);

    // The poller sends each copy as the event it copies: its id, payload and headers.
    List<OutboxMessage> claimed = store().claim("p2", 10, NOW.plusSeconds(1), LEASE).messages();
    assertThat(claimed)
        .extracting(OutboxMessage::eventId)
        .containsExactlyInAnyOrder(ids.get(1), ids.get(0), ids.get(3));
    OutboxMessage a =
        claimed.stream().filter(m -> m.eventId().equals(ids.get(0))).findFirst().get();
    assertThat(a.id()).isNotEqualTo(ids.get(0));
    assertThat(a.payload()).isEqualTo("{\"order\":\"a\",\"n\":1}");
    assertThat(a.headers()).containsKey("traceparent");
    assertThat(a.destination()).isEqualTo(QUEUE);
    assertThat(a.retryCount()).isZero();

    List<AuditEntry> trail =
        DeadLetterStore.builder(newExecutor()).tables(tables).build().auditTrail(step.rewindId());
    assertThat(trail)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.action()).isEqualTo(AuditEntry.REWIND);
              assertThat(e.destinationOverride()).isEqualTo(QUEUE);
              assertThat(e.requestedBy()).isEqualTo("operator");
              assertThat(e.details()).containsPattern("\"copied\": ?3").contains("order.placed");
            });
  }

  @Test
  void aRewind_goesOnFromItsCursor_pacedOnFromWhereThePreviousStepEnded_andCopiesNothingTwice() {
    List<UUID> ids = new ArrayList<>();
    List<OutboxEvent> events = new ArrayList<>();
    long[] sent = new long[7];
    for (int i = 0; i < 7; i++) {
      events.add(event("k" + i, "order.placed", i));
      sent[i] = 10 + i;
    }
    ids.addAll(delivered(events, sent));
    RewindPacing pacing = new RewindPacing(2);

    RewindStep first = rewinds().step(HOUR, QUEUE, pacing, 3, null, AUDIT);
    RewindStep second = rewinds().step(HOUR, QUEUE, pacing, 3, first.next(), AUDIT);
    RewindStep again = rewinds().step(HOUR, QUEUE, pacing, 3, first.next(), AUDIT);
    RewindStep last = rewinds().step(HOUR, QUEUE, pacing, 3, second.next(), AUDIT);

    assertThat(List.of(first.copied(), second.copied(), again.copied(), last.copied()))
        .containsExactly(3, 3, 0, 1);
    assertThat(again.alreadyCopied()).isEqualTo(3);
    assertThat(last.done()).isTrue();
    assertThat(last.copiedInAll()).isEqualTo(7);
    List<Copy> copies = copies();
    assertThat(copies).extracting(Copy::rewindOf).containsExactlyElementsOf(ids);
    List<Instant> due = copies.stream().map(Copy::due).toList();
    for (int i = 0; i < due.size(); i++) {
      assertThat(due.get(i)).as("copy %d", i).isEqualTo(NOW.plusMillis(500L * i));
    }
    assertThat(
            DeadLetterStore.builder(newExecutor())
                .tables(tables)
                .build()
                .auditTrail(first.rewindId()))
        .hasSize(4);
  }

  @Test
  void aStep_withACursorOfAnotherRewind_isRefused() {
    delivered(List.of(event("a", "order.placed", 1)), 10);
    RewindStep step = rewinds().step(HOUR, QUEUE, new RewindPacing(2), 1, null, AUDIT);
    RewindCursor other =
        new RewindCursor(step.rewindId(), T0, RewindCursor.NO_ID, NOW, 0, "not-this-one");

    assertThatThrownBy(() -> rewinds().step(HOUR, QUEUE, new RewindPacing(2), 1, other, AUDIT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("another range");
  }

  /**
   * Rows marked sent by one statement share their sent time; an aggregate's rows among them go in
   * the order they were written (seq), whatever their ids say, and a step never ends inside such a
   * group, so the next step cannot find an aggregate's earlier row after a later one was copied.
   * Here a's events have ids that sort against the order they were written in.
   */
  @Test
  void rowsSentTogether_areCopiedInTheirWrittenOrder_andNeverSplitBetweenSteps() {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      OutboxEvent e = event(i < 4 ? "a" : "b" + i, "order.placed", i);
      if (i >= 1 && i <= 3) {
        e =
            e.toBuilder()
                .id(UUID.fromString("00000000-0000-7000-8000-00000000000" + (9 - i)))
                .build();
      }
      ids.addAll(append(T0.plusMillis(i), e));
    }
    OutboxStore sender = sender();
    sender.claim("p", 100, T0.plusSeconds(1), LEASE);
    sender.complete("p", List.of(new Published(ids.get(0))), T0.plusSeconds(5));
    sender.complete(
        "p",
        List.of(
            new Published(ids.get(3)),
            new Published(ids.get(1)),
            new Published(ids.get(2)),
            new Published(ids.get(4))),
        T0.plusSeconds(6));
    sender.complete("p", List.of(new Published(ids.get(5))), T0.plusSeconds(7));

    RewindPacing pacing = new RewindPacing(10);
    RewindStep first = rewinds().step(HOUR, QUEUE, pacing, 3, null, AUDIT);

    assertThat(first.copied())
        .as("the group sent at 6 s waits whole for the next step")
        .isEqualTo(1);
    RewindStep second = rewinds().step(HOUR, QUEUE, pacing, 5, first.next(), AUDIT);
    assertThat(second.copied()).isEqualTo(5);
    assertThat(copies()).extracting(Copy::rewindOf).containsExactlyElementsOf(ids);
  }

  /**
   * With ordering by aggregate, a copy that fails and backs off holds back the later copies of its
   * aggregate, though they fall due: they arrive in their original order.
   */
  @Test
  void copiesOfOneAggregate_goOutInOrder_evenWhenOneIsRetried() {
    List<UUID> ids =
        delivered(
            List.of(
                event("a", "order.placed", 1),
                event("a", "order.placed", 2),
                event("b", "order.placed", 3),
                event("a", "order.placed", 4)),
            10,
            11,
            12,
            13);
    rewinds().step(HOUR, QUEUE, new RewindPacing(1), 100, null, AUDIT);
    OutboxStore ordered =
        OutboxStore.builder(newExecutor()).tables(tables).ordering(Ordering.AGGREGATE).build();

    List<OutboxMessage> heads = ordered.claim("p1", 10, NOW.plusSeconds(10), LEASE).messages();
    assertThat(heads)
        .extracting(OutboxMessage::eventId)
        .containsExactlyInAnyOrder(ids.get(0), ids.get(2));
    UUID a1 = heads.stream().filter(m -> m.eventId().equals(ids.get(0))).findFirst().get().id();
    UUID b = heads.stream().filter(m -> m.eventId().equals(ids.get(2))).findFirst().get().id();
    ordered.complete(
        "p1",
        List.of(new Retry(a1, "Throttled", "slow down", NOW.plusSeconds(60)), new Published(b)),
        NOW.plusSeconds(10));

    // a's second copy has long been due, but waits behind the first.
    assertThat(ordered.claim("p2", 10, NOW.plusSeconds(30), LEASE).isEmpty()).isTrue();
    List<UUID> order = new ArrayList<>();
    Instant at = NOW.plusSeconds(61);
    for (int round = 0; round < 3; round++, at = at.plusSeconds(1)) {
      List<OutboxMessage> claimed = ordered.claim("p3", 10, at, LEASE).messages();
      assertThat(claimed).hasSize(1);
      order.add(claimed.get(0).eventId());
      ordered.complete("p3", List.of(new Published(claimed.get(0).id())), at);
    }
    assertThat(order).containsExactly(ids.get(0), ids.get(1), ids.get(3));
  }

  /**
   * A payload far larger than one result row of the Data API (64 KB) or one response (1 MiB) is
   * copied whole, in SQL; a dry run shows its first characters only.
   */
  @Test
  void aPayloadOfAnySize_isCopiedWhole_andADryRunShowsItCut() {
    List<UUID> ids =
        delivered(List.of(event("a", "order.placed", 1), event("b", "order.placed", 2)), 10, 11);
    writeHugePayload(tables.messages(), ids.get(0));

    RewindPreview preview = rewinds().preview(HOUR, 10, 1_000);
    rewinds().step(HOUR, QUEUE, new RewindPacing(10), 100, null, AUDIT);

    assertThat(preview.sample()).hasSize(2);
    String cut = preview.sample().get(0).payloadPreview();
    assertThat(cut.codePointCount(0, cut.length())).isEqualTo(1_000);
    assertThat(preview.sample().get(0).payloadLength()).isEqualTo(HUGE_CHARS + 11L);
    assertThat(
            rows.count(
                tables.messages() + " c JOIN " + tables.messages() + " o ON c.rewind_of = o.id",
                "c.payload = o.payload AND c.headers = o.headers"))
        .isEqualTo(2);
  }

  // ---- bounded statements on a long history

  /**
   * The plans of the statements a step and a dry run read, as the database makes them over a
   * history of {@code sentRows} sent rows (each statement run once more with EXPLAIN in front, over
   * JDBC); the step's copy INSERT is by primary key.
   */
  List<String> plansOverAHistoryOf(int sentRows) throws Exception {
    try (Connection c = database().open()) {
      c.setAutoCommit(true);
      dev.lambdaoutbox.bench.HistoryLoader loader =
          new dev.lambdaoutbox.bench.HistoryLoader(c, database().dialect(), tables);
      loader.sentOverKeys(sentRows, 1_000, 0, T0.plus(Duration.ofDays(2)));
      loader.analyze();
    }
    List<String> plans = new ArrayList<>();
    SqlExecutor jdbc = jdbcExecutor();
    SqlExecutor explaining =
        new SqlExecutor() {
          @Override
          public SqlDialect dialect() {
            return jdbc.dialect();
          }

          @Override
          public <T> T inTransaction(String what, SqlWork<T> work) {
            return jdbc.inTransaction(
                what,
                s ->
                    work.run(
                        new SqlSession() {
                          @Override
                          public List<Row> query(String sql, Params params) {
                            StringBuilder plan = new StringBuilder(sql).append('\n');
                            for (Row r : s.query("EXPLAIN " + sql, params)) {
                              plan.append(String.join(" | ", r.values())).append('\n');
                            }
                            plans.add(plan.toString());
                            return s.query(sql, params);
                          }

                          @Override
                          public int update(String sql, Params params) {
                            return s.update(sql, params);
                          }

                          @Override
                          public void batch(String sql, List<Params> sets) {
                            s.batch(sql, sets);
                          }
                        }));
          }
        };
    RewindStore rewinds = RewindStore.over(explaining, tables, Clock.fixed(NOW, ZoneOffset.UTC));
    RewindRange rare = new RewindRange(T0, T0.plus(Duration.ofDays(2)), "no.such.type", null, null);
    rewinds.preview(rare, 10, 100);
    RewindStep step = rewinds.step(rare, QUEUE, new RewindPacing(10), 100, null, AUDIT);
    assertThat(step.copied()).isZero();
    assertThat(step.done()).as("a step stops after its windows, however rare the type").isFalse();
    return plans;
  }

  // ---- a dry run

  @Test
  void preview_countsAndSamplesTheMatchingRows_andChangesNothing() {
    List<UUID> ids =
        delivered(
            List.of(
                event("a", "order.placed", 1),
                event("a", "order.shipped", 2),
                event("b", "order.placed", 3)),
            20,
            10,
            30);
    RewindRange placed = new RewindRange(T0, T0.plusSeconds(3600), "order.placed", "order", "a");

    RewindPreview one = rewinds().preview(placed, 10, 1_000);
    RewindPreview all = rewinds().preview(HOUR, 2, 5);

    assertThat(one.matching()).isEqualTo(1);
    assertThat(one.complete()).isTrue();
    assertThat(one.sample())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.id()).isEqualTo(ids.get(0));
              assertThat(s.sentAt()).isEqualTo(T0.plusSeconds(20));
              assertThat(s.payloadPreview()).isEqualTo("{\"order\":\"a\",\"n\":1}");
            });
    assertThat(all.matching()).isEqualTo(3);
    assertThat(all.sample())
        .extracting(RewindPreview.Sample::id)
        .containsExactly(ids.get(1), ids.get(0));
    assertThat(all.sample().get(0).payloadPreview()).isEqualTo("{\"ord");
    assertThat(rows.count(tables.messages(), "status = 'PENDING'")).isZero();
    assertThat(rows.count(tables.deadLetterAudit(), "1 = 1")).isZero();
  }

  /** Rows copied once are not matched by a later rewind of a range that covers their sending. */
  @Test
  void copies_areNeverCopiedAgain() {
    delivered(List.of(event("a", "order.placed", 1)), 10);
    rewinds().step(HOUR, QUEUE, new RewindPacing(10), 100, null, AUDIT);
    UUID copy = copies().get(0).id();
    OutboxStore sender = sender();
    sender.claim("p9", 10, NOW.plusSeconds(1), LEASE);
    sender.complete("p9", List.of(new Published(copy)), T0.plusSeconds(50));

    assertThat(rewinds().preview(HOUR, 10, 10).matching()).isEqualTo(1);
    assertThat(rewinds().step(HOUR, QUEUE, new RewindPacing(10), 100, null, AUDIT).copied())
        .isEqualTo(1);
  }
}
