package dev.lambdaoutbox.store.deadletter;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.deadletter.internal.ResultCollector;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.CanaryCheck;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.model.deadletter.FailureGroupPage;
import dev.lambdaoutbox.store.model.deadletter.ParkedKeys;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.model.deadletter.RedriveStep;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
  private final DeadLetterMoves moves;
  private final FailureGroupRedrives redrives;

  SqlDeadLetterStore(Builder b) {
    this.executor = b.executor;
    this.tables = b.tables;
    this.dialect = StoreSql.of(executor.dialect(), tables).deadLetters();
    this.clock = b.clock();
    this.batchSize = b.batchSize;
    this.moves = new DeadLetterMoves(executor, dialect, tables, clock, batchSize);
    this.redrives = new FailureGroupRedrives(executor, dialect, tables, clock, batchSize, moves);
  }

  @Override
  public DeadLetterPage list(
      DeadLetterFilter filter, DeadLetterCursor after, int limit, int payloadPreviewChars) {
    requireLimit(limit);
    if (payloadPreviewChars < 1) {
      throw new IllegalArgumentException("payloadPreviewChars must be positive");
    }
    return moves.read(
        "list dead letters",
        s -> dialect.listDeadLetters(s, filter, after, limit, payloadPreviewChars));
  }

  @Override
  public DeadLetterSummary summarize(DeadLetterFilter filter) {
    return moves.read("summarize dead letters", s -> dialect.summarizeDeadLetters(s, filter));
  }

  @Override
  public long count() {
    return moves.read("count dead letters", dialect::countDeadLetters);
  }

  @Override
  public ParkedKeys parkedKeys(int limit) {
    requireLimit(limit);
    return moves.read(
        "list parked keys",
        s -> new ParkedKeys(dialect.parkedKeys(s, limit), dialect.countParkedKeys(s)));
  }

  @Override
  public DeadLetterActionResult replay(
      List<UUID> ids, String destinationOverride, boolean dryRun, AuditInfo audit) {
    requireIds(ids);
    requireDestination(destinationOverride);
    ResultCollector result = new ResultCollector(dryRun);
    for (List<UUID> chunk : moves.chunks(ids)) {
      moves.runBatch(
          "replay",
          result,
          s -> {
            ResultCollector.Batch batch = new ResultCollector.Batch();
            List<DeadLetter> rows = dialect.deadLettersByIds(s, chunk, !dryRun);
            moves.skipMissing(s, chunk, rows, batch);
            if (dryRun) {
              moves.planReplay(s, rows, result.claimedKeys(), batch);
            } else {
              moves.moveToOutbox(s, rows, destinationOverride, audit, batch);
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
          moves.runBatch(
              "replay",
              result,
              s -> {
                examined.clear();
                ResultCollector.Batch b = new ResultCollector.Batch();
                List<DeadLetter> rows =
                    dialect.deadLettersMatching(s, filter, position, size, !dryRun);
                examined.addAll(rows);
                if (dryRun) {
                  moves.planReplay(s, rows, result.claimedKeys(), b);
                } else {
                  moves.moveToOutbox(s, rows, destinationOverride, audit, b);
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
    for (List<UUID> chunk : moves.chunks(ids)) {
      moves.runBatch(
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
              dialect.recordAudit(s, AuditEntry.DISCARD, rows, null, audit, moves.now());
              moves.delete(s, rows);
            }
            for (DeadLetter row : rows) {
              batch.applied(row.id());
              moves.release(s, row, false, dryRun, batch);
            }
            return batch.inOrderOf(chunk);
          });
    }
    return result.result(false);
  }

  @Override
  public List<AuditEntry> auditTrail(UUID deadLetterId) {
    return moves.read(
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

  @Override
  public FailureGroupPage failureGroups(String after, int limit, int samples, int backfill) {
    return redrives.failureGroups(after, limit, samples, backfill);
  }

  @Override
  public DeadLetterActionResult replayCanary(String group, AuditInfo audit) {
    return redrives.replayCanary(group, audit);
  }

  @Override
  public CanaryCheck canary(UUID id) {
    return redrives.canary(id);
  }

  @Override
  public RedriveStep redrive(String group, int limit, int perSecond, AuditInfo audit) {
    return redrives.redrive(group, limit, perSecond, audit);
  }

  @Override
  public List<UUID> stopRedrive(String group, int limit, AuditInfo audit) {
    return redrives.stopRedrive(group, limit, audit);
  }

  @Override
  public RedriveRows redriveRows(String group) {
    return redrives.redriveRows(group);
  }

  private boolean anyMatching(DeadLetterFilter filter, DeadLetterCursor after) {
    return moves.read(
        "look for more matching dead letters",
        s -> dialect.anyDeadLetterMatching(s, filter, after));
  }

  static void requireLimit(int limit) {
    if (limit < 1 || limit > MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "limit must be 1 to " + MAX_ROWS_PER_REQUEST + ", not " + limit);
    }
  }

  static void requireGroup(String group) {
    if (group == null || !group.matches("[0-9a-f]{32}")) {
      throw new IllegalArgumentException("group must be a failure fingerprint (32 hex digits)");
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
