package dev.lambdaoutbox.store.deadletter;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.CanaryCheck;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.model.deadletter.FailureGroupPage;
import dev.lambdaoutbox.store.model.deadletter.ParkedKeys;
import dev.lambdaoutbox.store.model.deadletter.RedriveRows;
import dev.lambdaoutbox.store.model.deadletter.RedriveStep;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.waiting.WaitingRowStore;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The dead-letter table as operators use it: list what died and why, put rows back into the outbox
 * (replay), or remove them for good (discard).
 *
 * <p>Every change runs in bounded batches, each one transaction that locks the dead rows it moves
 * ({@code SELECT ... FOR UPDATE}), so two replays of the same rows cannot both move one; and each
 * batch writes its audit rows (with a snapshot of the whole dead letter) in that same transaction.
 * A replayed row keeps its event id. A row whose id is already back in the outbox, that is no
 * longer dead, or whose idempotency key another outbox row holds, is skipped and reported, never
 * duplicated.
 *
 * <p>A dead letter that parked its aggregate ({@code OUTBOX_ORDERING=aggregate}) releases it when
 * it is replayed (it goes back at the head of the aggregate, ahead of the events that waited behind
 * it) or discarded (the events behind it become due), in the same transaction; the result lists the
 * aggregates released, and a dry run those that would be.
 */
public interface DeadLetterStore {
  /** Most ids or rows one request may name or touch. */
  int MAX_ROWS_PER_REQUEST = WaitingRowStore.MAX_ROWS_PER_REQUEST;

  /**
   * Rows of one page, oldest death first, starting after {@code after} (null for the first page).
   * Payloads are cut to {@code payloadPreviewChars} characters.
   */
  DeadLetterPage list(
      DeadLetterFilter filter, DeadLetterCursor after, int limit, int payloadPreviewChars);

  /** Counts of the rows {@code filter} matches, by error code and event type. */
  DeadLetterSummary summarize(DeadLetterFilter filter);

  /**
   * Rows in the dead-letter table, counted up to {@link DeadLetter#COUNT_CAP} + 1 (then there are
   * more).
   */
  long count();

  /**
   * Aggregates parked behind a dead letter ({@code OUTBOX_ORDERING=aggregate}), up to {@code limit}
   * of them, longest parked first, with how many parked and how many wait now.
   */
  ParkedKeys parkedKeys(int limit);

  /**
   * Moves the rows with these ids back into the outbox (same id, retry count 0, due now, replay
   * count + 1), sending them to {@code destinationOverride} when it is not null.
   */
  DeadLetterActionResult replay(
      List<UUID> ids, String destinationOverride, boolean dryRun, AuditInfo audit);

  /** Like {@link #replay(List, String, boolean, AuditInfo)} for the first {@code limit} matches. */
  DeadLetterActionResult replayMatching(
      DeadLetterFilter filter,
      int limit,
      String destinationOverride,
      boolean dryRun,
      AuditInfo audit);

  /** Removes the rows with these ids; the audit keeps a full snapshot of each, payload included. */
  DeadLetterActionResult discard(List<UUID> ids, boolean dryRun, AuditInfo audit);

  /** What operators did to one dead letter, oldest first. */
  List<AuditEntry> auditTrail(UUID deadLetterId);

  /** Most failure groups one listing returns. */
  int MAX_GROUPS_PER_PAGE = 100;

  /** Most sample ids a failure group shows. */
  int MAX_GROUP_SAMPLES = 10;

  /**
   * Up to {@code limit} failure groups ({@link FailureGroup}) after the fingerprint {@code after}
   * (null: from the first), each with up to {@code samples} ids. First gives up to {@code backfill}
   * dead letters from before fingerprints theirs (0: none), in batches.
   */
  FailureGroupPage failureGroups(String after, int limit, int samples, int backfill);

  /**
   * Replays the oldest dead letter of the failure group {@code group} alone, due now, as the
   * re-drive's canary ({@link AuditEntry#REDRIVE_CANARY}); a row that cannot go back (its id or
   * idempotency key taken) is skipped and the next one tried, within one batch.
   */
  DeadLetterActionResult replayCanary(String group, AuditInfo audit);

  /** What became of the re-drive's canary {@code id}. */
  CanaryCheck canary(UUID id);

  /**
   * One step of the group's re-drive, at most {@code limit} rows: its held rows get due times
   * again, then its dead letters are replayed ({@link AuditEntry#REDRIVE}), each due at the pace of
   * {@code perSecond} ({@link dev.lambdaoutbox.store.model.PacedDueTimes}), following the rows of
   * the group already scheduled. Each batch is one transaction.
   */
  RedriveStep redrive(String group, int limit, int perSecond, AuditInfo audit);

  /**
   * Holds up to {@code limit} of the group's re-driven rows not yet published (due never, {@link
   * AuditEntry#REDRIVE_HOLD}); a row a poller holds is left to finish. Returns the ids held.
   */
  List<UUID> stopRedrive(String group, int limit, AuditInfo audit);

  /** The group's dead letters left, and its re-driven rows scheduled and held. */
  RedriveRows redriveRows(String group);

  /**
   * One page of the audit entries {@code filter} matches, newest first, starting after {@code
   * after} (null for the first page). The payload of each snapshot is cut to {@code
   * payloadPreviewChars} characters. Reads only.
   */
  AuditPage audit(AuditFilter filter, AuditCursor after, int limit, int payloadPreviewChars);

  /**
   * A store whose statements run on {@code executor}, in the executor's SQL dialect. Each batch,
   * and each read, is one transaction of the executor.
   */
  static Builder builder(SqlExecutor executor) {
    return new Builder(executor);
  }

  /** Configures a {@link DeadLetterStore}. */
  final class Builder {
    final SqlExecutor executor;
    OutboxTables tables = OutboxTables.defaults();
    private Clock clock;
    int batchSize = 100;

    private Builder(SqlExecutor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
    }

    public Builder tables(OutboxTables tables) {
      this.tables = Objects.requireNonNull(tables, "tables");
      return this;
    }

    /**
     * A clock that stands in for the database's (a test's timeline); by default the database's own
     * ({@link DatabaseClock}), which dates replayed rows and audit entries and decides the age of
     * waiting rows.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The clock the stores built from here read: the one given, else the database's, made once on
     * first use and shared by them.
     */
    public Clock clock() {
      if (clock == null) {
        clock = DatabaseClock.of(executor);
      }
      return clock;
    }

    /** Rows per transaction in a replay or discard; 1 to 500, 100 by default. */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1 || batchSize > 500) {
        throw new IllegalArgumentException("batchSize must be 1 to 500, not " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    public DeadLetterStore build() {
      return new SqlDeadLetterStore(this);
    }

    /**
     * The rows waiting for a destination that is down, on the same executor, tables, clock and
     * batch size, for a poller that orders as {@code ordering} says (with {@link
     * Ordering#AGGREGATE}, a waiting row dead-lettered parks its aggregate, as the poller does).
     */
    public WaitingRowStore waitingRows(Ordering ordering) {
      return WaitingRowStore.over(executor, tables, clock(), batchSize, ordering);
    }

    /** Rewinds of delivered events, on the same executor, tables and clock. */
    public dev.lambdaoutbox.store.rewind.RewindStore rewinds() {
      return dev.lambdaoutbox.store.rewind.RewindStore.over(executor, tables, clock());
    }
  }
}
