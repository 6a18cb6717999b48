package dev.lambdaoutbox.store.deadletter;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.deadletter.internal.ResultCollector;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.internal.dialect.FailureGroupSql;
import dev.lambdaoutbox.store.model.PacedDueTimes;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.CanaryCheck;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionException;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.model.deadletter.FailureGroup;
import dev.lambdaoutbox.store.model.deadletter.FailureGroupPage;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.model.deadletter.ParkedKeys;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.model.deadletter.RedriveStep;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.SqlWork;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntFunction;

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
        s -> new ParkedKeys(dialect.parkedKeys(s, limit), dialect.countParkedKeys(s)));
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

  @Override
  public FailureGroupPage failureGroups(String after, int limit, int samples, int backfill) {
    if (limit < 1 || limit > MAX_GROUPS_PER_PAGE) {
      throw new IllegalArgumentException(
          "limit must be 1 to " + MAX_GROUPS_PER_PAGE + ", not " + limit);
    }
    if (samples < 1 || samples > MAX_GROUP_SAMPLES) {
      throw new IllegalArgumentException(
          "samples must be 1 to " + MAX_GROUP_SAMPLES + ", not " + samples);
    }
    if (backfill < 0 || backfill > MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "backfill must be 0 to " + MAX_ROWS_PER_REQUEST + ", not " + backfill);
    }
    FailureGroupSql groups = dialect.failureGroups();
    int backfilled = 0;
    while (backfilled < backfill) {
      int want = backfill - backfilled;
      int stamped =
          executor.inTransaction(
              "give dead letters their fingerprints in " + tables.deadLetters(),
              s -> groups.backfill(s, want));
      backfilled += stamped;
      if (stamped == 0) {
        break;
      }
    }
    int done = backfilled;
    return read(
        "list failure groups",
        s -> {
          List<FailureGroup> page =
              groups.groups(s, after == null ? "" : after, limit + 1, samples);
          String next = null;
          if (page.size() > limit) {
            page = page.subList(0, limit);
            next = page.get(limit - 1).fingerprint();
          }
          return new FailureGroupPage(page, next, done, groups.countUnfingerprinted(s));
        });
  }

  @Override
  public DeadLetterActionResult replayCanary(String group, AuditInfo audit) {
    requireGroup(group);
    ResultCollector result = new ResultCollector(false);
    runBatch(
        "replay the canary of",
        result,
        s -> {
          ResultCollector.Batch batch = new ResultCollector.Batch();
          List<DeadLetterCursor> oldest = dialect.failureGroups().oldest(s, group, null, batchSize);
          for (DeadLetterCursor position : oldest) {
            List<DeadLetter> rows = dialect.deadLettersByIds(s, List.of(position.id()), false);
            ResultCollector.Batch one = new ResultCollector.Batch();
            moveToOutbox(s, rows, null, audit, one, AuditEntry.REDRIVE_CANARY, i -> null, group);
            batch.merge(one);
            if (one.appliedCount() > 0) {
              break;
            }
          }
          return batch;
        });
    return result.result(false);
  }

  @Override
  public CanaryCheck canary(UUID id) {
    Objects.requireNonNull(id, "id");
    FailureGroupSql groups = dialect.failureGroups();
    return read(
        "check the canary " + id,
        s -> {
          Row dead = groups.deadRow(s, id);
          if (dead != null) {
            return new CanaryCheck(
                id,
                CanaryCheck.State.FAILED_AGAIN,
                dead.text("error_code"),
                dead.text("error_reason"));
          }
          Row row = groups.outboxRow(s, id);
          if (row != null && "PENDING".equals(row.text("status"))) {
            return new CanaryCheck(
                id,
                CanaryCheck.State.PENDING,
                row.text("last_error_code"),
                row.text("last_error_reason"));
          }
          return new CanaryCheck(id, CanaryCheck.State.DELIVERED, null, null);
        });
  }

  /**
   * First the rows a stop held get their paced due times; then the group's dead letters go back
   * held (due never), batch by batch, and are given theirs the same way. A row's due time is set in
   * a short transaction of its own, from the database's time at its start: were it set while the
   * rows were moved, the moving itself (seconds for a batch over the Data API) would put the first
   * rows' times in the past at commit, and they would go out together. Rows an invocation left held
   * (it ended between the two) are resumed by the next step.
   */
  @Override
  public RedriveStep redrive(String group, int limit, int perSecond, AuditInfo audit) {
    requireGroup(group);
    requireLimit(limit);
    Pacer pacer = new Pacer(group, perSecond, audit);
    int resumed = pacer.paceHeld(limit, true);
    ResultCollector result = new ResultCollector(false);
    DeadLetterCursor after = null;
    int remaining = limit - resumed;
    while (remaining > 0) {
      int size = Math.min(batchSize, remaining);
      DeadLetterCursor position = after;
      List<DeadLetterCursor> examined = new ArrayList<>();
      FailureGroupSql groups = dialect.failureGroups();
      ResultCollector.Batch batch =
          runBatch(
              "re-drive",
              result,
              s -> {
                examined.clear();
                ResultCollector.Batch b = new ResultCollector.Batch();
                examined.addAll(groups.oldest(s, group, position, size));
                List<UUID> ids = examined.stream().map(DeadLetterCursor::id).toList();
                Map<UUID, DeadLetter> byId = new HashMap<>();
                dialect.deadLettersByIds(s, ids, false).forEach(d -> byId.put(d.id(), d));
                List<DeadLetter> rows =
                    ids.stream().map(byId::get).filter(Objects::nonNull).toList();
                moveToOutbox(
                    s,
                    rows,
                    null,
                    audit,
                    b,
                    AuditEntry.REDRIVE,
                    i -> FailureGroupSql.HELD_UNTIL,
                    group);
                return b;
              });
      if (examined.isEmpty()) {
        break;
      }
      pacer.paceHeld(batch.appliedCount(), false);
      remaining -= examined.size();
      after = examined.get(examined.size() - 1);
    }
    DeadLetterCursor last = after;
    boolean more =
        remaining <= 0
            && read(
                "look for more of the group",
                s -> !dialect.failureGroups().oldest(s, group, last, 1).isEmpty());
    return new RedriveStep(resumed, result.result(more), pacer.lastDue, more);
  }

  /** Gives a group's held rows paced due times, following the group's last. */
  private final class Pacer {
    private final String group;
    private final int perSecond;
    private final AuditInfo audit;
    private boolean lastDueRead;
    Instant lastDue;

    Pacer(String group, int perSecond, AuditInfo audit) {
      this.group = group;
      this.perSecond = perSecond;
      this.audit = audit;
    }

    /**
     * Up to {@code limit} held rows, in batches, each batch one short transaction that paces its
     * rows from the database's time at its start; {@code audited}: each an audit row ({@link
     * AuditEntry#REDRIVE_RESUME}), as for rows a stop held (rows just replayed have theirs).
     */
    int paceHeld(int limit, boolean audited) {
      FailureGroupSql groups = dialect.failureGroups();
      int paced = 0;
      while (paced < limit) {
        int size = Math.min(batchSize, limit - paced);
        DatabaseClock.sync(clock);
        int n =
            executor.inTransaction(
                "pace the held rows of a re-drive in " + tables.messages(),
                s -> {
                  Instant now = now();
                  if (!lastDueRead) {
                    lastDue = groups.lastDue(s, group, now);
                    lastDueRead = true;
                  }
                  PacedDueTimes pace = PacedDueTimes.following(lastDue, now, perSecond);
                  List<UUID> ids = groups.held(s, group, size);
                  groups.setDue(s, ids, pace::due);
                  if (audited) {
                    dialect.recordRedriveAudit(
                        s, AuditEntry.REDRIVE_RESUME, ids, group, pace::due, audit, now);
                  }
                  if (!ids.isEmpty()) {
                    lastDue = pace.due(ids.size() - 1L);
                  }
                  return ids.size();
                });
        if (n == 0) {
          break;
        }
        paced += n;
      }
      return paced;
    }
  }

  @Override
  public List<UUID> stopRedrive(String group, int limit, AuditInfo audit) {
    requireGroup(group);
    requireLimit(limit);
    FailureGroupSql groups = dialect.failureGroups();
    List<UUID> held = new ArrayList<>();
    while (held.size() < limit) {
      int size = Math.min(batchSize, limit - held.size());
      DatabaseClock.sync(clock);
      List<UUID> ids =
          executor.inTransaction(
              "hold the rows of a re-drive in " + tables.messages(),
              s -> {
                Instant now = now();
                List<UUID> h = groups.hold(s, group, now, size);
                dialect.recordRedriveAudit(
                    s, AuditEntry.REDRIVE_HOLD, h, group, i -> null, audit, now);
                return h;
              });
      held.addAll(ids);
      if (ids.size() < size) {
        break;
      }
    }
    return held;
  }

  @Override
  public RedriveRows redriveRows(String group) {
    requireGroup(group);
    return read("count a re-drive's rows", s -> dialect.failureGroups().redriveRows(s, group));
  }

  /** Puts locked dead rows back into the outbox, audits and deletes the ones that went in. */
  private void moveToOutbox(
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
  private void moveToOutbox(
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

  private static void requireGroup(String group) {
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
