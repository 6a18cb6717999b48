package dev.lambdaoutbox.store.deadletter;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.deadletter.internal.ResultCollector;
import dev.lambdaoutbox.store.internal.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionException;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.SqlWork;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntFunction;

/**
 * How dead rows go back into the outbox, or away: each batch one transaction that moves the rows it
 * locked, audits them, releases the aggregates they parked and deletes them; a dry run reads only.
 */
final class DeadLetterMoves {
  private final SqlExecutor executor;
  private final DeadLetterSql dialect;
  private final OutboxTables tables;
  private final Clock clock;
  private final int batchSize;

  DeadLetterMoves(
      SqlExecutor executor,
      DeadLetterSql dialect,
      OutboxTables tables,
      Clock clock,
      int batchSize) {
    this.executor = executor;
    this.dialect = dialect;
    this.tables = tables;
    this.clock = clock;
    this.batchSize = batchSize;
  }

  /** Puts locked dead rows back into the outbox, audits and deletes the ones that went in. */
  void moveToOutbox(
      SqlSession s,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      ResultCollector.Batch batch) {
    moveToOutbox(s, rows, destinationOverride, audit, batch, AuditEntry.REPLAY, i -> null, null);
  }

  /**
   * Puts locked dead rows back into the outbox, audits ({@code action}) and deletes the ones that
   * went in; the i-th that goes in is due {@code due(i)} (null: now), in the re-drive's group
   * {@code redriveGroup} (null: none).
   */
  void moveToOutbox(
      SqlSession s,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      ResultCollector.Batch batch,
      String action,
      IntFunction<Instant> due,
      String redriveGroup) {
    Instant now = now();
    List<DeadLetter> moved = new ArrayList<>();
    for (DeadLetter row : rows) {
      Instant at = due.apply(moved.size());
      SkipReason skip =
          dialect.reinsert(s, row, destinationOverride, now, at == null ? now : at, redriveGroup);
      if (skip == null) {
        moved.add(row);
        batch.applied(row.id());
        release(s, row, true, false, batch);
      } else {
        batch.skipped(row.id(), skip);
      }
    }
    dialect.recordAudit(s, action, moved, destinationOverride, audit, now);
    delete(s, moved);
  }

  /** What {@link #moveToOutbox} would do, found by reading only. */
  void planReplay(
      SqlSession s, List<DeadLetter> rows, Set<String> claimedKeys, ResultCollector.Batch batch) {
    Set<UUID> inOutbox = dialect.idsInOutbox(s, rows.stream().map(DeadLetter::id).toList());
    Set<String> keys = new HashSet<>();
    rows.forEach(
        r -> {
          if (r.idempotencyKey() != null) {
            keys.add(r.idempotencyKey());
          }
        });
    Map<String, UUID> holders = dialect.idempotencyKeyHolders(s, keys);
    Set<String> claimed = new HashSet<>(claimedKeys);
    for (DeadLetter row : rows) {
      String key = row.idempotencyKey();
      if (inOutbox.contains(row.id())) {
        batch.skipped(row.id(), SkipReason.ALREADY_IN_OUTBOX);
      } else if (key != null && (holders.containsKey(key) || claimed.contains(key))) {
        batch.skipped(row.id(), SkipReason.IDEMPOTENCY_KEY_TAKEN);
      } else {
        if (key != null) {
          claimed.add(key);
          batch.claimedKey(key);
        }
        batch.applied(row.id());
        release(s, row, true, true, batch);
      }
    }
  }

  /**
   * Releases the aggregate parked behind {@code row}, if any (a dry run only reports it). A
   * replayed head takes its old place at the head of the aggregate.
   */
  void release(
      SqlSession s, DeadLetter row, boolean replayed, boolean dryRun, ResultCollector.Batch batch) {
    ParkedKey key = dialect.parkedKey(s, row.id(), !dryRun);
    if (key != null) {
      if (!dryRun) {
        dialect.release(s, key, replayed);
      }
      batch.released(key);
    }
  }

  /** Reports the requested ids that are not dead letters. */
  void skipMissing(
      SqlSession s, List<UUID> requested, List<DeadLetter> found, ResultCollector.Batch batch) {
    Set<UUID> dead = new HashSet<>();
    found.forEach(r -> dead.add(r.id()));
    List<UUID> missing = requested.stream().filter(id -> !dead.contains(id)).toList();
    Set<UUID> inOutbox = dialect.idsInOutbox(s, missing);
    for (UUID id : missing) {
      batch.skipped(id, inOutbox.contains(id) ? SkipReason.ALREADY_IN_OUTBOX : SkipReason.NOT_DEAD);
    }
  }

  /** Deletes rows this transaction holds locked; all of them must go. */
  void delete(SqlSession s, List<DeadLetter> rows) {
    if (rows.isEmpty()) {
      return;
    }
    int deleted = dialect.deleteDeadLetters(s, rows.stream().map(DeadLetter::id).toList());
    if (deleted != rows.size()) {
      throw new IllegalStateException(
          "deleted " + deleted + " of " + rows.size() + " locked dead letters; rolling back");
    }
  }

  ResultCollector.Batch runBatch(
      String action, ResultCollector result, SqlWork<ResultCollector.Batch> work) {
    ResultCollector.Batch batch;
    try {
      DatabaseClock.sync(clock); // before the transaction: the work dates what it writes
      batch = executor.inTransaction(action + " dead letters", work);
    } catch (RuntimeException e) {
      DeadLetterActionResult committed = result.result(false);
      throw new DeadLetterActionException(
          action
              + " stopped: the failing batch was rolled back; "
              + committed.batches()
              + " earlier batch(es) stay committed. "
              + e.getMessage(),
          committed,
          e);
    }
    result.merge(batch);
    return batch;
  }

  <T> T read(String what, SqlWork<T> work) {
    return executor.inTransaction(what + " in " + tables.deadLetters(), work);
  }

  List<List<UUID>> chunks(List<UUID> ids) {
    List<List<UUID>> chunks = new ArrayList<>();
    for (int from = 0; from < ids.size(); from += batchSize) {
      chunks.add(List.copyOf(ids.subList(from, Math.min(ids.size(), from + batchSize))));
    }
    return chunks;
  }

  Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }
}
