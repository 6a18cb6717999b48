package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The poller's store's statements ({@link dev.lambdaoutbox.store.SqlOutboxStore}): claims,
 * completions, the parking of a dead-lettered head's aggregate, the backlog alarms watch and the
 * due count. Each method runs in the caller's transaction on {@code s}; none commits. Times are to
 * the microsecond.
 */
public interface OutboxSql {
  /**
   * Claims the oldest due PENDING rows ({@code next_attempt_at <= now}, in {@code next_attempt_at,
   * id} order, along the due index), skipping rows another transaction holds locked: stamps them
   * with the lease ({@code locked_by}, {@code locked_until}, and {@code next_attempt_at} = the
   * lease end, so they stop being due until the lease runs out) and returns them in that order.
   *
   * <p>Each row is read on its own ({@link dev.lambdaoutbox.store.internal.rows.MessageRows}). A
   * row that cannot be read is not leased but moved to the dead-letter table, database-side so its
   * columns keep their stored text, with {@link
   * dev.lambdaoutbox.store.model.UnreadableRow#ERROR_CODE}; a time column that cannot be read is
   * replaced by {@code now} there (its text is in the reason).
   *
   * <p>Where the session bounds a result ({@link SqlSession#maxResultBytes()}), fewer rows are
   * claimed when their sizes say they would not fit in one result; the first due row is always
   * claimed.
   */
  Claim claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd);

  /**
   * The ordered claim's key walk ({@link dev.lambdaoutbox.store.model.Ordering#AGGREGATE}): the
   * next {@code keys} aggregates in key order (aggregate_type, aggregate_id), after {@code after}
   * (from the first key when null) and up to {@code upTo} (inclusive; to the last key when null),
   * each with its head, the first PENDING row in seq order (none where it has no PENDING row now:
   * on MySQL the walk also visits aggregates that hold only retained SENT rows). Along the key
   * index, whatever the number of events behind each head. Reads without locking; fewer than {@code
   * keys} means the range ended.
   */
  List<KeyHead> walkKeys(SqlSession s, KeyHead.Key after, KeyHead.Key upTo, int keys, Instant now);

  /**
   * The ordered claim's second step: locks the rows among {@code heads} (ids as {@link #walkKeys}
   * returned them) that are still PENDING, due, and the oldest PENDING row of their aggregate,
   * skipping rows another transaction holds locked, leases them as {@link #claim} does and returns
   * them in due order. So at most one event per aggregate is ever leased. Where the session bounds
   * a result, the heads are sized as in {@link #claim}. An unreadable head is dead-lettered as in
   * {@link #claim}, and parks its aggregate first ({@link #park}).
   */
  Claim claimHeads(SqlSession s, String owner, List<String> heads, Instant now, Instant leaseEnd);

  /**
   * Where the ordered claim's shared cursor {@code name} stands (one primary-key read of {@code
   * outbox_claim_cursors}): the last aggregate a claim visited, or null where the walk starts at
   * the first key (none yet, or the cursor's row is missing or holds half a key).
   */
  KeyHead.Key claimCursor(SqlSession s, String name);

  /**
   * As {@link #claimCursor}, and locks the cursor's row until the transaction ends ({@code SELECT
   * ... FOR UPDATE} by primary key), so that claims that reserve their aggregates first take turns
   * at it. A missing row locks nothing.
   */
  KeyHead.Key lockClaimCursor(SqlSession s, String name);

  /**
   * Moves the ordered claim's shared cursor {@code name} to {@code key} (null: the first key next):
   * one {@code UPDATE} of its row, or where the row is missing, one {@code INSERT} of it that keeps
   * a row another claim inserted first. The row stays locked until the transaction ends, so it is
   * the last statement of the claim's.
   */
  void moveClaimCursor(SqlSession s, String name, KeyHead.Key key, Instant now);

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
   * for one. For the same reason at most {@code perHead} rows move behind each head, the first in
   * seq order, so that a completion touches a bounded number of rows whatever an aggregate's size:
   * the rows left where they were are taken only after the head is published, and a short claim
   * moves those it finds in its window ({@link #holdBehindWaitingHeads}).
   */
  void holdBehind(SqlSession s, Collection<UUID> heads, int perHead);

  /**
   * With ordering, after a claim of {@code limit} came back short: the rows of the window it looked
   * at (of the {@link #scan} oldest due rows, those of aggregates not parked) that are due before
   * their own aggregate's head while that head waits (backs off, is deferred, or is due but further
   * along the due index) become due at the head's due time. Without this, events written after
   * their head was held back ({@link #holdBehind} moves only those there are) sit before it in the
   * due index, and enough of them fill the window: the heads behind them, due or soon due, are
   * never looked at, and nothing more is claimed. A head under a live lease is in flight; its rows
   * stay where they are. Rows another transaction holds are skipped; this never waits for a lock.
   * Returns how many rows moved.
   */
  int holdBehindWaitingHeads(SqlSession s, Instant now, int limit);

  /**
   * Parks the aggregate of each row among {@code heads} that {@code owner} still holds, before that
   * row is dead-lettered in the same transaction: a parked-keys row (the head's id and seq, the
   * events behind it counted up to {@link
   * dev.lambdaoutbox.store.model.deadletter.DeadLetter#COUNT_CAP} plus one). The events are not
   * touched, whatever their number. Returns, per head parked, how many events it parked.
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
   * What alarms watch, in one statement: the oldest PENDING row's creation time (along the
   * unpublished index: one index entry, no table read), the dead letters counted up to {@link
   * dev.lambdaoutbox.store.model.Backlog#DEAD_LETTER_COUNT_CAP} plus one, and the destinations
   * down, misconfigured and stale ({@code next_probe_at} before {@code staleBefore}).
   */
  Backlog backlog(SqlSession s, Instant now, Instant staleBefore);

  /**
   * Due rows, counted along the due index up to {@code limit}. With {@code ordered}, only those of
   * aggregates that are not parked among the {@link #scan} oldest, so a parked backlog never counts
   * as work and costs no more than that front. Rows queued behind a head in flight (leased) are
   * counted: the ordered claim takes them one round after another, as their heads are published.
   */
  int countDue(SqlSession s, Instant now, int limit, boolean ordered);

  /**
   * The whole payload of the PENDING row {@code id}, which a claim returns cut when it is over 256
   * KiB: read in pieces of at most 256 KiB each, so that each fits a bounded result, when it holds
   * at most {@code maxBytes} UTF-8 bytes.
   */
  FullPayload fullPayload(SqlSession s, UUID id, long maxBytes);

  /**
   * Takes or renews poller lease {@code name} for {@code owner} until {@code until}, if it has run
   * out at {@code now} or is the owner's already; returns whether the owner holds it.
   */
  boolean holdLease(SqlSession s, String name, String owner, Instant now, Instant until);

  /** Gives poller lease {@code name} back at {@code now} if {@code owner} holds it. */
  boolean releaseLease(SqlSession s, String name, String owner, Instant now);
}
