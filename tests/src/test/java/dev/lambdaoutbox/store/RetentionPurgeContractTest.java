package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.bench.HistoryLoader;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.writer.DuplicateIdempotencyKeyException;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The retention pass ({@link OutboxStore#purge}: sent rows past retention, idempotency keys past
 * the window) is bounded by time, not by a row count, so it keeps up with any write rate its time
 * slice can delete, and pollers purging at once neither block nor deadlock each other, nor the
 * writers taking new keys. Against a real database; each subclass names it and what carries the
 * store's SQL.
 */
abstract class RetentionPurgeContractTest extends StoreTestBase {
  static final Duration RETENTION = Duration.ofHours(1);
  static final Duration SLICE = Duration.ofSeconds(30);
  static final Duration WINDOW = Duration.ofHours(24);

  /** Sent rows past retention at {@code now}: sent in the {@code count} ms before the cutoff. */
  void expiredSentRows(int count, Instant now) {
    try (Connection c = database().open()) {
      new HistoryLoader(c, database().dialect(), tables).sent(count, now.minus(RETENTION));
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  OutboxStore retainingStore() {
    return OutboxStore.builder(newExecutor()).tables(tables).retention(RETENTION).build();
  }

  @Test
  void purge_freesTheIdempotencyKeysPastTheWindow_alongsideTheSentRows() {
    Instant now = T0.plus(WINDOW).plusSeconds(1);
    expiredKeys("old-", 12_000, now);
    UUID recent = append(now.minusSeconds(2), keyed("recent")).get(0);
    expiredSentRows(2_500, now);

    PurgeReport report = keyPurgingStore().purge(now, SLICE);

    assertThat(report.purged())
        .containsExactly(Map.entry("sentRows", 2_500L), Map.entry("idempotencyKeys", 12_000L));
    assertThat(report.caughtUp()).isTrue();
    assertThat(rows.count(tables.idempotencyKeys(), "1 = 1")).isEqualTo(1);
    // A freed key is the writer's again; one within the window is still refused.
    append(now, keyed("old-1"));
    assertThatThrownBy(() -> append(now, keyed("recent")))
        .isInstanceOfSatisfying(
            DuplicateIdempotencyKeyException.class,
            e -> assertThat(e.firstEventId()).isEqualTo(recent));
  }

  @Test
  void purge_ofKeys_fromTwoPollersAtOnce_whileWritersTakeNewKeys_deletesEachExpiredKeyOnce()
      throws Exception {
    Instant now = T0.plus(WINDOW);
    int expired = 30_000;
    expiredKeys("old-", expired, now);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Long>> pollers = new ArrayList<>();
      for (int p = 0; p < 2; p++) {
        OutboxStore store = keyPurgingStore();
        pollers.add(pool.submit(() -> purgeUntilNothingLeft(store, now)));
      }
      Future<Integer> writer =
          pool.submit(
              () -> {
                int appended = 0;
                while (pollers.stream().anyMatch(f -> !f.isDone())) {
                  append(now, keyed("new-" + appended++));
                }
                return appended;
              });
      long purged = 0;
      for (Future<Long> poller : pollers) {
        purged += poller.get(); // a deadlock the executor could not retry away would throw here
      }

      // The writer's last append may still be committing when the pollers are done.
      long appended = writer.get();
      assertThat(purged).isEqualTo(expired);
      assertThat(rows.count(tables.idempotencyKeys(), "idempotency_key LIKE 'old-%'")).isZero();
      assertThat(rows.count(tables.idempotencyKeys(), "idempotency_key LIKE 'new-%'"))
          .isEqualTo(appended);
    } finally {
      pool.shutdownNow();
    }
  }

  private OutboxStore keyPurgingStore() {
    return OutboxStore.builder(newExecutor())
        .tables(tables)
        .retention(RETENTION)
        .idempotencyWindow(WINDOW)
        .build();
  }

  /** As scheduled runs would: purges until a run finds nothing left; returns how many went. */
  private static long purgeUntilNothingLeft(OutboxStore store, Instant now) {
    long purged = 0;
    PurgeReport report;
    do {
      report = store.purge(now, SLICE);
      purged += report.total();
    } while (report.total() > 0);
    return purged;
  }

  /** Keys past the window at {@code now}: first seen in the {@code count} ms before the cutoff. */
  private void expiredKeys(String prefix, int count, Instant now) {
    try (Connection c = database().open()) {
      new HistoryLoader(c, database().dialect(), tables)
          .idempotencyKeys(prefix, count, now.minus(WINDOW));
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static OutboxEvent keyed(String key) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(key)
        .eventType("order.created")
        .payload("{}")
        .idempotencyKey(key)
        .build();
  }

  @Test
  void purge_deletesFarMoreThanTheOld5000ARun_inOneCall_andLeavesTheRestAlone() {
    Instant now = T0.plus(RETENTION);
    expiredSentRows(20_000, now);
    try (Connection c = database().open()) {
      new HistoryLoader(c, database().dialect(), tables).sent(100, now.minusSeconds(60));
      new HistoryLoader(c, database().dialect(), tables).pending(100, T0);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }

    PurgeReport report = retainingStore().purge(now, SLICE);

    assertThat(report).isEqualTo(new PurgeReport(Map.of("sentRows", 20_000L), true));
    assertThat(rows.count(tables.messages(), "status = 'SENT'")).isEqualTo(100);
    assertThat(rows.count(tables.messages(), "status = 'PENDING'")).isEqualTo(100);
  }

  @Test
  void purge_startsNoBatchOnceItsTimeSliceIsUsed_andTheNextCallGoesOn() {
    Instant now = T0.plus(RETENTION);
    int total = 5 * OutboxStore.PURGE_BATCH;
    expiredSentRows(total, now);
    OutboxStore store = retainingStore();

    PurgeReport none = store.purge(now, Duration.ZERO);
    PurgeReport cut = store.purge(now, Duration.ofMillis(1)); // ends during the first batch
    PurgeReport rest = store.purge(now, SLICE);

    assertThat(none).isEqualTo(new PurgeReport(Map.of("sentRows", 0L), false));
    assertThat(cut.caughtUp()).isFalse();
    assertThat(cut.total()).isLessThan(total).isNotNegative();
    assertThat(cut.total() % OutboxStore.PURGE_BATCH).isZero();
    assertThat(rest).isEqualTo(new PurgeReport(Map.of("sentRows", total - cut.total()), true));
    assertThat(rows.count(tables.messages(), "1 = 1")).isZero();
  }

  @Test
  void purge_fromTwoPollersAtOnce_deletesEveryRowOnce_withoutWaitingOrDeadlocking()
      throws Exception {
    Instant now = T0.plus(RETENTION);
    int total = 60_000;
    expiredSentRows(total, now);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Long>> pollers = new ArrayList<>();
      for (int p = 0; p < 2; p++) {
        OutboxStore store = retainingStore();
        pollers.add(pool.submit(() -> purgeUntilNothingLeft(store, now)));
      }
      long purged = 0;
      for (Future<Long> poller : pollers) {
        purged += poller.get(); // a deadlock the executor could not retry away would throw here
      }

      assertThat(purged).isEqualTo(total);
      assertThat(rows.count(tables.messages(), "1 = 1")).isZero();
    } finally {
      pool.shutdownNow();
    }
  }
}
