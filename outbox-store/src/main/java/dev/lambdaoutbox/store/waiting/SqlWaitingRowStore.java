package dev.lambdaoutbox.store.waiting;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.WaitingRowSql;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.waiting.WaitingActionException;
import dev.lambdaoutbox.store.model.waiting.WaitingActionResult;
import dev.lambdaoutbox.store.model.waiting.WaitingDestination;
import dev.lambdaoutbox.store.model.waiting.WaitingForTime;
import dev.lambdaoutbox.store.model.waiting.WaitingRow;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.SqlWork;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The {@link WaitingRowStore}: arguments checked and batches cut here, each batch and each read one
 * transaction of the executor, the SQL in the executor's dialect home: its own statements ({@link
 * WaitingRowSql}), and to dead-letter rows the poller's ({@link
 * dev.lambdaoutbox.store.internal.dialect.OutboxSql}).
 */
final class SqlWaitingRowStore implements WaitingRowStore {
  /**
   * How long the rows a batch dead-letters are leased to it: they leave the outbox in the same
   * transaction, so the lease is never seen outside it.
   */
  private static final Duration LEASE = Duration.ofMinutes(5);

  /** The longest lease owner the outbox holds ({@code locked_by}). */
  private static final int MAX_OWNER_LENGTH = Claim.MAX_OWNER_LENGTH;

  private final SqlExecutor executor;
  private final StoreSql sql;
  private final OutboxTables tables;
  private final Clock clock;
  private final boolean ordered;
  private final int batchSize;

  SqlWaitingRowStore(
      SqlExecutor executor, OutboxTables tables, Clock clock, int batchSize, Ordering ordering) {
    this.executor = Objects.requireNonNull(executor, "executor");
    this.tables = Objects.requireNonNull(tables, "tables");
    this.sql = StoreSql.of(executor.dialect(), tables);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ordered = Objects.requireNonNull(ordering, "ordering") == Ordering.AGGREGATE;
    this.batchSize = batchSize;
  }

  @Override
  public List<WaitingDestination> waiting(DeadLetterFilter filter) {
    if (filter.deadFrom() != null || filter.deadTo() != null) {
      return List.of(); // a row that waits has not died
    }
    return executor.inTransaction(
        "list the rows waiting in " + tables.messages(),
        s -> {
          List<WaitingDestination> waiting = new ArrayList<>();
          for (DestinationHealth health : sql.health().destinationHealth(s)) {
            WaitingRowSql.WaitingCount count =
                sql.waiting()
                    .countWaiting(
                        s,
                        DestinationHealth.key(health.destination()),
                        filter,
                        Backlog.WAITING_COUNT_CAP + 1);
            if (count.rows() > 0) {
              waiting.add(new WaitingDestination(health, count.rows(), count.oldestCreatedAt()));
            }
          }
          waiting.sort(Comparator.comparing(WaitingDestination::oldestCreatedAt));
          return waiting;
        });
  }

  @Override
  public WaitingForTime waitingForTime(int shown) {
    if (shown < 0 || shown > MAX_ROWS_PER_REQUEST) {
      throw new IllegalArgumentException(
          "shown must be 0 to " + MAX_ROWS_PER_REQUEST + ", was " + shown);
    }
    DatabaseClock.sync(clock); // before the transaction: its work reads the time
    Instant now = clock.instant();
    return executor.inTransaction(
        "list the rows waiting for their time in " + tables.messages(),
        s -> {
          long rows = sql.waiting().countWaitingForTime(s, now, Backlog.WAITING_COUNT_CAP + 1);
          return new WaitingForTime(
              rows, rows == 0 ? List.of() : sql.waiting().nextDue(s, now, shown));
        });
  }

  @Override
  public WaitingActionResult retarget(
      String from, String to, int limit, boolean dryRun, AuditInfo audit) {
    requireDestination("from", from);
    requireDestination("to", to);
    if (from.equals(to)) {
      throw new IllegalArgumentException("to is the destination the rows wait for: " + to);
    }
    return move(
        "retarget",
        from,
        limit,
        dryRun,
        (s, rows, now, batch) -> {
          List<UUID> ids = rows.stream().map(WaitingRow::id).toList();
          int moved = sql.waiting().retarget(s, ids, to, now);
          if (moved != rows.size()) {
            throw new IllegalStateException(
                "retargeted " + moved + " of " + rows.size() + " locked rows; rolling back");
          }
          sql.waiting().recordRetargetAudit(s, rows, from, to, audit, now);
        });
  }

  @Override
  public WaitingActionResult deadLetter(String from, int limit, boolean dryRun, AuditInfo audit) {
    requireDestination("from", from);
    String owner = owner(audit);
    return move(
        "dead-letter",
        from,
        limit,
        dryRun,
        (s, rows, now, batch) -> {
          List<UUID> ids = rows.stream().map(WaitingRow::id).toList();
          sql.waiting().lease(s, ids, owner, now.plus(LEASE));
          if (ordered) {
            Map<UUID, Integer> parked = sql.outbox().park(s, owner, ids, now);
            parked.values().forEach(batch::parked);
          }
          List<DeliveryOutcome.DeadLetter> outcomes =
              rows.stream().map(r -> deadLetterOf(r, from)).toList();
          dev.lambdaoutbox.store.internal.dialect.OutboxSql.Moved moved =
              sql.outbox().deadLettered(s, owner, outcomes, now);
          if (moved.ids().size() != rows.size()) {
            throw new IllegalStateException(
                "dead-lettered "
                    + moved.ids().size()
                    + " of "
                    + rows.size()
                    + " locked rows; rolling back");
          }
          List<DeadLetter> written = sql.deadLetters().deadLettersByIds(s, ids, false);
          sql.deadLetters().recordAudit(s, AuditEntry.DEAD_LETTER, written, null, audit, now);
        });
  }

  /** What one batch does to the rows it locked, in its transaction. */
  @FunctionalInterface
  private interface BatchMove {
    void apply(SqlSession s, List<WaitingRow> rows, Instant now, Batch batch);
  }

  /** What one committed batch did. */
  private static final class Batch {
    final List<UUID> applied = new ArrayList<>();
    long parkedEvents;

    void parked(int events) {
      parkedEvents += events;
    }
  }

  /**
   * Moves up to {@code limit} rows waiting for {@code from}, oldest first, a batch per transaction;
   * a dry run reads them only.
   */
  private WaitingActionResult move(
      String action, String from, int limit, boolean dryRun, BatchMove work) {
    requireLimit(limit);
    String key = DestinationHealth.key(from);
    DatabaseClock.sync(clock); // before the transactions: their work reads the time
    if (dryRun) {
      List<WaitingRow> rows =
          read(
              "look at the rows waiting for " + from,
              s -> sql.waiting().waitingRows(s, key, now(), limit + 1, false));
      List<UUID> would = rows.stream().limit(limit).map(WaitingRow::id).toList();
      return new WaitingActionResult(true, would, rows.size() > limit, 0, 0);
    }
    List<UUID> applied = new ArrayList<>();
    long parkedEvents = 0;
    int batches = 0;
    int remaining = limit;
    while (remaining > 0) {
      int size = Math.min(batchSize, remaining);
      Batch batch;
      try {
        batch =
            executor.inTransaction(
                action + " rows waiting for " + from + " in " + tables.messages(),
                s -> {
                  Batch b = new Batch();
                  Instant now = now();
                  List<WaitingRow> rows = sql.waiting().waitingRows(s, key, now, size, true);
                  if (!rows.isEmpty()) {
                    work.apply(s, rows, now, b);
                    rows.forEach(r -> b.applied.add(r.id()));
                  }
                  return b;
                });
      } catch (RuntimeException e) {
        throw new WaitingActionException(
            action
                + " stopped: the failing batch was rolled back; "
                + batches
                + " earlier batch(es) stay committed. "
                + e.getMessage(),
            new WaitingActionResult(false, applied, true, batches, parkedEvents),
            e);
      }
      if (batch.applied.isEmpty()) {
        break;
      }
      applied.addAll(batch.applied);
      parkedEvents += batch.parkedEvents;
      batches++;
      remaining -= batch.applied.size();
      if (batch.applied.size() < size) {
        break;
      }
    }
    boolean more =
        read(
                    "count the rows still waiting for " + from,
                    s -> sql.waiting().countWaiting(s, key, DeadLetterFilter.all(), 1))
                .rows()
            > 0;
    return new WaitingActionResult(false, applied, more, batches, parkedEvents);
  }

  /** The dead letter a waiting row becomes: the error it was deferred with. */
  private static DeliveryOutcome.DeadLetter deadLetterOf(WaitingRow row, String from) {
    return new DeliveryOutcome.DeadLetter(
        row.id(),
        row.lastErrorCode(),
        "dead-lettered by an operator while waiting for "
            + from
            + (row.lastErrorReason() == null ? "" : ": " + row.lastErrorReason()));
  }

  /** The lease owner a request's batches use: the request id, within the column's width. */
  private static String owner(AuditInfo audit) {
    String owner = "reprocessor:" + audit.requestId();
    return owner.length() > MAX_OWNER_LENGTH ? owner.substring(0, MAX_OWNER_LENGTH) : owner;
  }

  private <T> T read(String what, SqlWork<T> work) {
    return executor.inTransaction(what + " in " + tables.messages(), work);
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

  private static void requireDestination(String name, String destination) {
    String problem = Destinations.problemWith(destination);
    if (problem != null) {
      throw new IllegalArgumentException(name + " " + problem);
    }
  }
}
