package dev.lambdaoutbox.store.deadletter;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.deadletter.internal.ResultCollector;
import dev.lambdaoutbox.store.internal.dialect.DeadLetterSql;
import dev.lambdaoutbox.store.internal.dialect.FailureGroupSql;
import dev.lambdaoutbox.store.model.PacedDueTimes;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.CanaryCheck;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.FailureGroup;
import dev.lambdaoutbox.store.model.deadletter.FailureGroupPage;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.model.deadletter.RedriveStep;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The failure groups of {@link DeadLetterStore}: listed with their fingerprints backfilled, and
 * re-driven back into the outbox, paced, a canary first; a re-drive can be stopped (its rows held)
 * and resumed.
 */
final class FailureGroupRedrives {
  private final SqlExecutor executor;
  private final DeadLetterSql dialect;
  private final OutboxTables tables;
  private final Clock clock;
  private final int batchSize;
  private final DeadLetterMoves moves;

  FailureGroupRedrives(
      SqlExecutor executor,
      DeadLetterSql dialect,
      OutboxTables tables,
      Clock clock,
      int batchSize,
      DeadLetterMoves moves) {
    this.executor = executor;
    this.dialect = dialect;
    this.tables = tables;
    this.clock = clock;
    this.batchSize = batchSize;
    this.moves = moves;
  }

  FailureGroupPage failureGroups(String after, int limit, int samples, int backfill) {
    if (limit < 1 || limit > DeadLetterStore.MAX_GROUPS_PER_PAGE) {
      throw new IllegalArgumentException(
          "limit must be 1 to " + DeadLetterStore.MAX_GROUPS_PER_PAGE + ", not " + limit);
    }
    if (samples < 1 || samples > DeadLetterStore.MAX_GROUP_SAMPLES) {
      throw new IllegalArgumentException(
          "samples must be 1 to " + DeadLetterStore.MAX_GROUP_SAMPLES + ", not " + samples);
    }
    if (backfill < 0 || backfill > DeadLetterStore.MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "backfill must be 0 to " + DeadLetterStore.MAX_ROWS_PER_REQUEST + ", not " + backfill);
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
    return moves.read(
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

  DeadLetterActionResult replayCanary(String group, AuditInfo audit) {
    SqlDeadLetterStore.requireGroup(group);
    ResultCollector result = new ResultCollector(false);
    moves.runBatch(
        "replay the canary of",
        result,
        s -> {
          ResultCollector.Batch batch = new ResultCollector.Batch();
          List<DeadLetterCursor> oldest = dialect.failureGroups().oldest(s, group, null, batchSize);
          for (DeadLetterCursor position : oldest) {
            List<DeadLetter> rows = dialect.deadLettersByIds(s, List.of(position.id()), false);
            ResultCollector.Batch one = new ResultCollector.Batch();
            moves.moveToOutbox(
                s, rows, null, audit, one, AuditEntry.REDRIVE_CANARY, i -> null, group);
            batch.merge(one);
            if (one.appliedCount() > 0) {
              break;
            }
          }
          return batch;
        });
    return result.result(false);
  }

  CanaryCheck canary(UUID id) {
    Objects.requireNonNull(id, "id");
    FailureGroupSql groups = dialect.failureGroups();
    return moves.read(
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
  RedriveStep redrive(String group, int limit, int perSecond, AuditInfo audit) {
    SqlDeadLetterStore.requireGroup(group);
    SqlDeadLetterStore.requireLimit(limit);
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
          moves.runBatch(
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
                moves.moveToOutbox(
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
            && moves.read(
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
                  Instant now = moves.now();
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

  List<UUID> stopRedrive(String group, int limit, AuditInfo audit) {
    SqlDeadLetterStore.requireGroup(group);
    SqlDeadLetterStore.requireLimit(limit);
    FailureGroupSql groups = dialect.failureGroups();
    List<UUID> held = new ArrayList<>();
    while (held.size() < limit) {
      int size = Math.min(batchSize, limit - held.size());
      DatabaseClock.sync(clock);
      List<UUID> ids =
          executor.inTransaction(
              "hold the rows of a re-drive in " + tables.messages(),
              s -> {
                Instant now = moves.now();
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

  RedriveRows redriveRows(String group) {
    SqlDeadLetterStore.requireGroup(group);
    return moves.read(
        "count a re-drive's rows", s -> dialect.failureGroups().redriveRows(s, group));
  }
}
