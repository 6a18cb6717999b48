package dev.lambdaoutbox.store.deadletter;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.DatabaseClock;
import dev.lambdaoutbox.store.deadletter.internal.ResultCollector;
import dev.lambdaoutbox.store.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.dialect.StoreSql;
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

/**
 * The {@link DeadLetterStore}: arguments checked and batches cut here, each batch and each read one
 * transaction of the executor, the SQL in the executor's dialect home ({@link DeadLetterSql}).
 */
final class SqlDeadLetterStore implements DeadLetterStore {
  private final SqlExecutor executor;
  private final DeadLetterSql dialect;
  private final OutboxTables tables;
  private final Clock clock;
  private final int batchSize;

  SqlDeadLetterStore(Builder b) {
    this.executor = b.executor;
    this.tables = b.tables;
    this.dialect = StoreSql.of(executor.dialect(), tables).deadLetters();
    this.clock = b.clock();
    this.batchSize = b.batchSize;
  }

  @Override
  public DeadLetterPage list(
      DeadLetterFilter filter, DeadLetterCursor after, int limit, int payloadPreviewChars) {
    requireLimit(limit);
    if (payloadPreviewChars < 1) {
      throw new IllegalArgumentException("payloadPreviewChars must be positive");
    }
    return read(
        "list dead letters",
        s -> dialect.listDeadLetters(s, filter, after, limit, payloadPreviewChars));
  }

  @Override
  public DeadLetterSummary summarize(DeadLetterFilter filter) {
    return read("summarize dead letters", s -> dialect.summarizeDeadLetters(s, filter));
  }

  @Override
  public long count() {
    return read("count dead letters", dialect::countDeadLetters);
  }

  @Override
  public ParkedKeys parkedKeys(int limit) {
    requireLimit(limit);
    return read(
        "list parked keys",
        s ->
            new ParkedKeys(
                dialect.parkedKeys(s, limit),
                dialect.countParkedKeys(s),
                dialect.countMarkedParked(s)));
  }

  @Override
  public DeadLetterActionResult replay(
      List<UUID> ids, String destinationOverride, boolean dryRun, AuditInfo audit) {
    requireIds(ids);
    requireDestination(destinationOverride);
    ResultCollector result = new ResultCollector(dryRun);
    for (List<UUID> chunk : chunks(ids)) {
      runBatch(
          "replay",
          result,
          s -> {
            ResultCollector.Batch batch = new ResultCollector.Batch();
            List<DeadLetter> rows = dialect.deadLettersByIds(s, chunk, !dryRun);
            skipMissing(s, chunk, rows, batch);
            if (dryRun) {
              planReplay(s, rows, result.claimedKeys(), batch);
            } else {
              moveToOutbox(s, rows, destinationOverride, audit, batch);
            }
            return batch.inOrderOf(chunk);
          });
    }
    return result.result(false);
  }

  @Override
  public DeadLetterActionResult replayMatching(
      DeadLetterFilter filter,
      int limit,
      String destinationOverride,
      boolean dryRun,
      AuditInfo audit) {
    requireLimit(limit);
    requireDestination(destinationOverride);
    ResultCollector result = new ResultCollector(dryRun);
    DeadLetterCursor after = null;
    int remaining = limit;
    while (remaining > 0) {
      int size = Math.min(batchSize, remaining);
      DeadLetterCursor position = after;
      List<DeadLetter> examined = new ArrayList<>();
      ResultCollector.Batch batch =
          runBatch(
              "replay",
              result,
              s -> {
                examined.clear();
                ResultCollector.Batch b = new ResultCollector.Batch();
                List<DeadLetter> rows =
                    dialect.deadLettersMatching(s, filter, position, size, !dryRun);
                examined.addAll(rows);
                if (dryRun) {
                  planReplay(s, rows, result.claimedKeys(), b);
                } else {
                  moveToOutbox(s, rows, destinationOverride, audit, b);
                }
                return b;
              });
      if (examined.isEmpty()) {
        break;
      }
      remaining -= batch.examined();
      after = examined.get(examined.size() - 1).position();
    }
    boolean more = remaining == 0 && anyMatching(filter, after);
    return result.result(more);
  }

  @Override
  public DeadLetterActionResult discard(List<UUID> ids, boolean dryRun, AuditInfo audit) {
    requireIds(ids);
    ResultCollector result = new ResultCollector(dryRun);
    for (List<UUID> chunk : chunks(ids)) {
      runBatch(
          "discard",
          result,
          s -> {
            ResultCollector.Batch batch = new ResultCollector.Batch();
            List<DeadLetter> rows = dialect.deadLettersByIds(s, chunk, !dryRun);
            Set<UUID> found = new HashSet<>();
            rows.forEach(r -> found.add(r.id()));
            for (UUID id : chunk) {
              if (!found.contains(id)) {
                batch.skipped(id, SkipReason.NOT_DEAD);
              }
            }
            if (!dryRun) {
              dialect.recordAudit(s, AuditEntry.DISCARD, rows, null, audit, now());
              delete(s, rows);
            }
            for (DeadLetter row : rows) {
              batch.applied(row.id());
              release(s, row, false, dryRun, batch);
            }
            return batch.inOrderOf(chunk);
          });
    }
    return result.result(false);
  }

  @Override
  public List<AuditEntry> auditTrail(UUID deadLetterId) {
    return read(
        "read the audit trail of " + deadLetterId, s -> dialect.auditTrail(s, deadLetterId));
  }

  @Override
  public AuditPage audit(
      AuditFilter filter, AuditCursor after, int limit, int payloadPreviewChars) {
    requireLimit(limit);
    if (payloadPreviewChars < 1) {
      throw new IllegalArgumentException("payloadPreviewChars must be positive");
    }
    return executor.inTransaction(
        "read the audit in " + tables.deadLetterAudit(),
        s -> {
          List<AuditPage.Entry> entries =
              dialect.auditEntries(s, filter, after, limit + 1, payloadPreviewChars);
          if (entries.size() <= limit) {
            return new AuditPage(entries, null);
          }
          List<AuditPage.Entry> page = entries.subList(0, limit);
          return new AuditPage(page, new AuditCursor(page.get(limit - 1).entry().auditId()));
        });
  }

  /** Puts locked dead rows back into the outbox, audits and deletes the ones that went in. */
  private void moveToOutbox(
      SqlSession s,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      ResultCollector.Batch batch) {
    Instant now = now();
    List<DeadLetter> moved = new ArrayList<>();
    for (DeadLetter row : rows) {
      SkipReason skip = dialect.reinsert(s, row, destinationOverride, now);
      if (skip == null) {
        moved.add(row);
        batch.applied(row.id());
        release(s, row, true, false, batch);
      } else {
        batch.skipped(row.id(), skip);
      }
    }
    dialect.recordAudit(s, AuditEntry.REPLAY, moved, destinationOverride, audit, now);
    delete(s, moved);
  }

  /** What {@link #moveToOutbox} would do, found by reading only. */
  private void planReplay(
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
  private void release(
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
  private void skipMissing(
      SqlSession s, List<UUID> requested, List<DeadLetter> found, ResultCollector.Batch batch) {
    Set<UUID> dead = new HashSet<>();
    found.forEach(r -> dead.add(r.id()));
    List<UUID> missing = requested.stream().filter(id -> !dead.contains(id)).toList();
    Set<UUID> inOutbox = dialect.idsInOutbox(s, missing);
    for (UUID id : missing) {
      batch.skipped(id, inOutbox.contains(id) ? SkipReason.ALREADY_IN_OUTBOX : SkipReason.NOT_DEAD);
    }
  }

  private boolean anyMatching(DeadLetterFilter filter, DeadLetterCursor after) {
    return read(
        "look for more matching dead letters",
        s -> dialect.anyDeadLetterMatching(s, filter, after));
  }

  /** Deletes rows this transaction holds locked; all of them must go. */
  private void delete(SqlSession s, List<DeadLetter> rows) {
    if (rows.isEmpty()) {
      return;
    }
    int deleted = dialect.deleteDeadLetters(s, rows.stream().map(DeadLetter::id).toList());
    if (deleted != rows.size()) {
      throw new IllegalStateException(
          "deleted " + deleted + " of " + rows.size() + " locked dead letters; rolling back");
    }
  }

  private ResultCollector.Batch runBatch(
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

  private <T> T read(String what, SqlWork<T> work) {
    return executor.inTransaction(what + " in " + tables.deadLetters(), work);
  }

  private List<List<UUID>> chunks(List<UUID> ids) {
    List<List<UUID>> chunks = new ArrayList<>();
    for (int from = 0; from < ids.size(); from += batchSize) {
      chunks.add(List.copyOf(ids.subList(from, Math.min(ids.size(), from + batchSize))));
    }
    return chunks;
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  private static void requireLimit(int limit) {
    if (limit < 1 || limit > MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "limit must be 1 to " + MAX_ROWS_PER_REQUEST + ", not " + limit);
    }
  }

  private static void requireIds(List<UUID> ids) {
    if (ids.isEmpty() || ids.size() > MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "ids must name 1 to " + MAX_ROWS_PER_REQUEST + " dead letters, not " + ids.size());
    }
    if (new HashSet<>(ids).size() != ids.size()) {
      throw new IllegalArgumentException("ids must not repeat an id");
    }
  }

  private static void requireDestination(String destination) {
    if (destination != null) {
      String problem = Destinations.problemWith(destination);
      if (problem != null) {
        throw new IllegalArgumentException("destination " + problem);
      }
    }
  }
}
