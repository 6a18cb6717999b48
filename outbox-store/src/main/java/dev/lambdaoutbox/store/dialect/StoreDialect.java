package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.Claim;
import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.DestinationState;
import dev.lambdaoutbox.store.OutboxStore.Backlog;
import dev.lambdaoutbox.store.SupersededDeadLetter;
import dev.lambdaoutbox.store.deadletter.AuditCursor;
import dev.lambdaoutbox.store.deadletter.AuditEntry;
import dev.lambdaoutbox.store.deadletter.AuditFilter;
import dev.lambdaoutbox.store.deadletter.AuditInfo;
import dev.lambdaoutbox.store.deadletter.AuditPage;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.deadletter.ParkedKey;
import dev.lambdaoutbox.store.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.waiting.WaitingRow;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Every statement the stores run, for one SQL dialect. Each method runs in the caller's transaction
 * on {@code session}; none commits. Times are to the microsecond.
 */
public interface StoreDialect {
  /** The home of {@code dialect}'s statements over {@code tables}. */
  static StoreDialect of(SqlDialect dialect, OutboxTables tables) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresDialect(tables);
      case MYSQL -> new MysqlDialect(tables);
    };
  }

  SqlDialect dialect();

  OutboxTables tables();

  // ---- the poller's outbox

  /**
   * Claims the oldest due PENDING rows ({@code next_attempt_at <= now}, in {@code next_attempt_at,
   * id} order, along the due index), skipping rows another transaction holds locked: stamps them
   * with the lease ({@code locked_by}, {@code locked_until}, and {@code next_attempt_at} = the
   * lease end, so they stop being due until the lease runs out) and returns them in that order.
   *
   * <p>Each row is read on its own ({@link MessageRows}). A row that cannot be read is not leased
   * but moved to the dead-letter table, database-side so its columns keep their stored text, with
   * {@link dev.lambdaoutbox.store.UnreadableRow#ERROR_CODE}; a time column that cannot be read is
   * replaced by {@code now} there (its text is in the reason).
   *
   * <p>Where the session bounds a result ({@link SqlSession#maxResultBytes()}), fewer rows are
   * claimed when their sizes say they would not fit in one result; the first due row is always
   * claimed.
   */
  Claim claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd);

  /**
   * The statement {@link #claim} runs first (it finds and locks the rows), with named parameters.
   */
  String claimSql();

  /**
   * The database's plan for {@link #claimSql()}, without running it: to check that it walks the due
   * index.
   */
  String explainClaim(SqlSession s, Instant now, int limit);

  /**
   * The ordered claim ({@link dev.lambdaoutbox.store.Ordering#AGGREGATE}): like {@link #claim}, but
   * takes a due row only when it is the oldest PENDING row of its aggregate (lowest {@code seq}: no
   * earlier event of the aggregate is leased, backing off, deferred or otherwise waiting) and its
   * aggregate is not parked. One statement finds and locks the rows, along the due index with one
   * key-index probe per candidate, so at most one event per aggregate is ever leased. Where the
   * session bounds a result, the heads are sized as in {@link #claim}. An unreadable head is
   * dead-lettered as in {@link #claim}, and parks its aggregate first ({@link #park}).
   */
  Claim claimHeads(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd);

  /** The statement {@link #claimHeads} runs first (it finds and locks the rows). */
  String claimHeadsSql();

  /** The database's plan for {@link #claimHeadsSql()}, without running it. */
  String explainClaimHeads(SqlSession s, Instant now, int limit);

  /** The due rows an ordered claim of {@code limit} rows looks at, at most: four per row. */
  static int scan(int limit) {
    return 4 * limit;
  }

  /**
   * With ordering, after retries and deferrals: the PENDING rows behind each of {@code heads} (same
   * aggregate, later seq) become due no earlier than their head, so that they do not crowd the
   * front of the ordered claim's window while it waits. Where they wait, not whether: the ordered
   * claim takes no row behind a PENDING one of its aggregate, so a row another transaction holds
   * locked is skipped (left where it is), and this never waits for a lock, nor fails the completion
   * for one.
   */
  void holdBehind(SqlSession s, Collection<UUID> heads);

  /**
   * The database's plan for how {@link #holdBehind} finds the rows behind {@code heads} (at most
   * 1,000), without running it.
   */
  String explainHoldBehind(SqlSession s, Collection<UUID> heads);

  /**
   * With ordering, after a claim of {@code limit} came back short: the rows of the window it looked
   * at ({@link #scan} oldest due rows of aggregates not parked) that are due before their own
   * aggregate's head while that head waits (backs off, is deferred, or is due but further along the
   * due index) become due at the head's due time. Without this, events written after their head was
   * held back ({@link #holdBehind} moves only those there are) sit before it in the due index, and
   * enough of them fill the window: the heads behind them, due or soon due, are never looked at,
   * and nothing more is claimed. A head under a live lease is in flight; its rows stay where they
   * are. Rows another transaction holds are skipped; this never waits for a lock. Returns how many
   * rows moved.
   */
  int holdBehindWaitingHeads(SqlSession s, Instant now, int limit);

  /** The database's plan for {@link #holdBehindWaitingHeads}, without running it. */
  String explainHoldBehindWaitingHeads(SqlSession s, Instant now, int limit);

  /**
   * Parks the aggregate of each row among {@code heads} that {@code owner} still holds, before that
   * row is dead-lettered in the same transaction: a parked-keys row (the head's id and seq, the
   * events behind it), and the events behind it marked parked (due never, last error saying behind
   * which dead letter). Returns, per head parked, how many events it parked.
   */
  Map<UUID, Integer> park(SqlSession s, String owner, List<UUID> heads, Instant now);

  /**
   * Deletes the PENDING rows among {@code ids} that {@code owner} still holds, or with {@code
   * retain} marks them SENT at {@code now}; returns the ids it changed. A row claimed since by
   * another invocation, or replayed from the dead letters under the same id, is left alone: the
   * late publish of an earlier claim does not settle it.
   */
  Set<UUID> published(SqlSession s, String owner, List<UUID> ids, Instant now, boolean retain);

  /**
   * Counts a failed attempt on each row {@code owner} still holds and makes it due again; returns
   * the ids it changed.
   */
  Set<UUID> retried(SqlSession s, String owner, List<DeliveryOutcome.Retry> retries, Instant now);

  /**
   * Moves each row {@code owner} still holds to the dead-letter table; returns the ids it moved. A
   * dead letter already there under the same id (the application reused an event id, or a replayed
   * row failed again) is written whole to the audit table as {@link AuditEntry#SUPERSEDED} and
   * replaced, in this transaction.
   */
  Moved deadLettered(
      SqlSession s, String owner, List<DeliveryOutcome.DeadLetter> deadLetters, Instant now);

  /** The dead letters' ids of the rows moved, and the older dead letters they replaced. */
  record Moved(Set<UUID> ids, List<SupersededDeadLetter> superseded) {}

  /**
   * Makes each row {@code owner} still holds due at its {@code until}, clearing the lease and
   * leaving retry_count alone; a deferral with an error code sets last_error_code and
   * last_error_reason, one without leaves them. Returns the ids it changed.
   */
  Set<UUID> deferred(
      SqlSession s, String owner, List<DeliveryOutcome.Defer> deferrals, Instant now);

  /**
   * Who holds each of the PENDING rows among {@code ids}: its {@code locked_by}, or null when its
   * lease is clear. A row that is not PENDING (gone, or SENT) has no entry.
   */
  Map<UUID, String> holders(SqlSession s, Collection<UUID> ids);

  /**
   * Deletes up to {@code limit} rows kept as SENT that were sent before {@code cutoff}, oldest
   * first along the sent index, skipping rows another transaction holds locked (so that pollers
   * purging at once neither wait for nor deadlock with each other).
   */
  int purgeSent(SqlSession s, Instant cutoff, int limit);

  /**
   * Deletes up to {@code limit} idempotency keys first seen before {@code cutoff}, oldest first
   * along the key table's time index, skipping keys another transaction holds locked (a writer
   * taking one, or another purge).
   */
  int purgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit);

  /**
   * The database's plan for {@link #purgeSent} (on MySQL, for its locking SELECT), without running
   * it.
   */
  String explainPurgeSent(SqlSession s, Instant cutoff, int limit);

  /**
   * The database's plan for {@link #purgeIdempotencyKeys} (on MySQL, for its locking SELECT),
   * without running it.
   */
  String explainPurgeIdempotencyKeys(SqlSession s, Instant cutoff, int limit);

  /**
   * What alarms watch, in one statement: the oldest PENDING row's creation time (along the
   * unpublished index: one index entry, no table read), the dead letters counted up to {@link
   * dev.lambdaoutbox.store.OutboxStore#DEAD_LETTER_COUNT_CAP} plus one, and the destinations down,
   * misconfigured and stale ({@code next_probe_at} before {@code staleBefore}).
   */
  Backlog backlog(SqlSession s, Instant now, Instant staleBefore);

  /** The statement {@link #backlog} runs, with the named parameter {@code :staleBefore}. */
  String backlogSql();

  /** The database's plan for {@link #backlog}, without running it. */
  String explainBacklog(SqlSession s, Instant now);

  // ---- destination health, shared by every poller

  /** Every destination marked down. */
  List<DestinationHealth> destinationHealth(SqlSession s);

  /** The row of {@code destination}, or null; with {@code lock}, locked until the end. */
  DestinationHealth destinationHealth(SqlSession s, String destination, boolean lock);

  /** Inserts {@code row} unless its destination has one; returns whether it went in. */
  boolean insertDestinationHealth(SqlSession s, DestinationHealth row);

  /**
   * Moves the destination's {@code next_probe_at} to {@code next} if it is due at {@code now};
   * returns whether it did.
   */
  boolean claimProbe(SqlSession s, String destination, Instant now, Instant next);

  /** One more failed probe, with its state and error; returns whether the row was there. */
  boolean recordFailedProbe(
      SqlSession s,
      String destination,
      DestinationState state,
      String errorCode,
      String reason,
      Instant now);

  /** Deletes the destination's row; returns whether there was one. */
  boolean deleteDestinationHealth(SqlSession s, String destination);

  /** Deletes the rows whose next probe is before {@code staleBefore}; returns how many. */
  int deleteStaleDestinationHealth(SqlSession s, Instant staleBefore);

  /**
   * Due rows, counted along the due index up to {@code limit}. With {@code ordered}, only those of
   * aggregates that are not parked: the events a parked aggregate had when it parked are not due,
   * and those written since are left out here, so a parked backlog never counts as work. Rows
   * queued behind a head in flight (leased) are counted: the ordered claim takes them one round
   * after another, as their heads are published.
   */
  int countDue(SqlSession s, Instant now, int limit, boolean ordered);

  // ---- parked keys, released by the reprocessor

  /** The key parked behind dead letter {@code deadLetterId}, or null; with {@code lock}, locked. */
  ParkedKey parkedKey(SqlSession s, UUID deadLetterId, boolean lock);

  /** Up to {@code limit} parked keys, longest parked first, with their waiting events. */
  List<ParkedKey> parkedKeys(SqlSession s, int limit);

  long countParkedKeys(SqlSession s);

  /**
   * Releases a parked key: with {@code restoreHead}, the replayed head (back in the outbox under
   * the dead letter's id) takes its old {@code seq} again, ahead of the events behind it; the
   * events marked parked become due at {@code now}; the parked-keys row goes. Returns how many
   * events were unmarked.
   */
  int release(SqlSession s, ParkedKey key, boolean restoreHead, Instant now);

  // ---- the rows waiting for a destination that is down, seen and moved by the reprocessor

  /**
   * How many rows wait for the destination with key {@code key} ({@link DestinationHealth#key})
   * among those {@code filter} matches (event type, aggregate, and as error code the one recorded
   * when the row was deferred), counted along the waiting index no further than {@code cap}, and
   * when the oldest of them was written.
   */
  WaitingCount countWaiting(SqlSession s, String key, DeadLetterFilter filter, int cap);

  /**
   * @param oldestCreatedAt null when no row waits
   */
  record WaitingCount(long rows, Instant oldestCreatedAt) {}

  /**
   * Up to {@code limit} rows waiting for the destination with key {@code key}, oldest first, but
   * those under a live lease at {@code now}; with {@code lock}, locked until the transaction ends,
   * skipping rows another transaction holds.
   */
  List<WaitingRow> waitingRows(SqlSession s, String key, Instant now, int limit, boolean lock);

  /**
   * Sends the PENDING rows among {@code ids} (at most 1,000) to {@code destination}, due at {@code
   * now}, waiting for nothing and leased to no one; returns how many changed.
   */
  int retarget(SqlSession s, Collection<UUID> ids, String destination, Instant now);

  /**
   * Leases the PENDING rows among {@code ids} (at most 1,000) to {@code owner} until {@code until},
   * as a claim does, so that {@link #park} and {@link #deadLettered} take them.
   */
  void lease(SqlSession s, Collection<UUID> ids, String owner, Instant until);

  /**
   * One audit row per retargeted row ({@link AuditEntry#RETARGET}): the destination it waited for,
   * the one it goes to, and the row as it was (without its payload, which goes on with the row).
   */
  void recordRetargetAudit(
      SqlSession s, List<WaitingRow> rows, String from, String to, AuditInfo audit, Instant now);

  // ---- the reprocessor's dead letters

  /**
   * A page of up to {@code limit} rows after {@code after} (null: from the start), oldest death
   * first, with payloads cut to {@code previewChars} characters, and where the next page starts.
   */
  DeadLetterPage listDeadLetters(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, int previewChars);

  /** Counts of the rows {@code filter} matches, by error code and event type. */
  DeadLetterSummary summarizeDeadLetters(SqlSession s, DeadLetterFilter filter);

  long countDeadLetters(SqlSession s);

  /**
   * The dead letters with these ids, by id; with {@code lock}, locked until the transaction ends.
   */
  List<DeadLetter> deadLettersByIds(SqlSession s, Collection<UUID> ids, boolean lock);

  /** Up to {@code limit} matching dead letters after {@code after}, oldest death first. */
  List<DeadLetter> deadLettersMatching(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, boolean lock);

  /** Whether any dead letter after {@code after} matches {@code filter}. */
  boolean anyDeadLetterMatching(SqlSession s, DeadLetterFilter filter, DeadLetterCursor after);

  /**
   * Puts a dead letter back into the outbox as a fresh PENDING row with the same event id: retry
   * count 0, due {@code now}, no lease, no last error, replay count one higher, created {@code now}
   * (so the backlog age does not count the days it lay dead). The insert itself decides clashes, so
   * a concurrent writer or replay can never make a duplicate.
   *
   * @return null when the row went in; otherwise why it did not
   */
  SkipReason reinsert(SqlSession s, DeadLetter row, String destinationOverride, Instant now);

  /** Deletes these dead letters; returns how many went. */
  int deleteDeadLetters(SqlSession s, Collection<UUID> ids);

  /** One audit row per dead letter, each with a snapshot of the row. */
  void recordAudit(
      SqlSession s,
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      Instant now);

  /** What operators did to one dead letter, oldest first. */
  List<AuditEntry> auditTrail(SqlSession s, UUID deadLetterId);

  /**
   * Up to {@code limit} audit entries {@code filter} matches, written before {@code after} (null:
   * from the newest), newest first, each snapshot's payload cut to {@code previewChars} characters.
   */
  List<AuditPage.Entry> auditEntries(
      SqlSession s, AuditFilter filter, AuditCursor after, int limit, int previewChars);

  /** Those of {@code ids} that are outbox rows. */
  Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids);

  /** Of {@code keys}, those an outbox row holds, with that row's id. */
  Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys);
}
