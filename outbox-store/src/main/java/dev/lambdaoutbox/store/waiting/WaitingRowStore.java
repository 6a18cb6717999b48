package dev.lambdaoutbox.store.waiting;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.waiting.WaitingActionResult;
import dev.lambdaoutbox.store.model.waiting.WaitingDestination;
import dev.lambdaoutbox.store.model.waiting.WaitingForTime;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Clock;
import java.util.List;

/**
 * The outbox rows waiting for a destination that is down, as operators see and move them. The
 * poller defers a row whose destination is down (its {@code waiting_for} names the destination) and
 * probes the destination until it answers: a destination that is {@link
 * DestinationState#UNAVAILABLE unavailable} heals by itself, one that is {@link
 * DestinationState#MISCONFIGURED misconfigured} (no such topic or queue, no permission, a KMS key)
 * waits for an operator. This store shows what waits, and lets an operator send it elsewhere
 * ({@link #retarget}) or give it up ({@link #deadLetter}).
 *
 * <p>Every change runs in bounded batches, each one transaction that locks the rows it moves,
 * skipping rows a poller holds (leased, or locked by a claim in progress), and writes one audit row
 * per row moved in that same transaction. Built beside the dead-letter store, on the same executor
 * and tables ({@link DeadLetterStore.Builder#waitingRows}).
 */
public interface WaitingRowStore {
  /** Most rows one request may move. */
  int MAX_ROWS_PER_REQUEST = 1_000;

  /**
   * Every destination marked down that has rows waiting for it which {@code filter} matches (event
   * type, aggregate, error code: the code the poller recorded when it deferred the row), with how
   * many wait (counted up to {@link Backlog#WAITING_COUNT_CAP} plus one) and since when, longest
   * waiting first. A death-time criterion matches no waiting row.
   */
  List<WaitingDestination> waiting(DeadLetterFilter filter);

  /**
   * The rows that wait for their time (written with a delay, or put back to go later): how many,
   * counted up to {@link Backlog#WAITING_COUNT_CAP} plus one, and the first {@code shown} to come
   * due, on the store's clock.
   */
  WaitingForTime waitingForTime(int shown);

  /**
   * Sends up to {@code limit} of the rows waiting for {@code from}, oldest first, to {@code to}:
   * each row's destination becomes {@code to}, it is due now and waits no more; its retry count, id
   * and creation time stay. Audited as {@code RETARGET}.
   */
  WaitingActionResult retarget(String from, String to, int limit, boolean dryRun, AuditInfo audit);

  /**
   * Moves up to {@code limit} of the rows waiting for {@code from}, oldest first, to the dead
   * letters, with the error the poller recorded when it deferred them; with {@link
   * Ordering#AGGREGATE} each parks its aggregate, as a dead-lettered head does. Audited as {@code
   * DEAD_LETTER}, with the dead letter as it was written.
   */
  WaitingActionResult deadLetter(String from, int limit, boolean dryRun, AuditInfo audit);

  /**
   * A store whose statements run on {@code executor}, in its dialect, over {@code tables}, moving
   * {@code batchSize} rows per transaction; {@link DeadLetterStore.Builder#waitingRows} builds one
   * beside the dead-letter store.
   */
  static WaitingRowStore over(
      SqlExecutor executor, OutboxTables tables, Clock clock, int batchSize, Ordering ordering) {
    return new SqlWaitingRowStore(executor, tables, clock, batchSize, ordering);
  }
}
