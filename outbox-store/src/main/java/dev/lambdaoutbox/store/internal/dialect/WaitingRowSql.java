package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.waiting.WaitingForTime;
import dev.lambdaoutbox.store.model.waiting.WaitingRow;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The reprocessor's statements over the rows waiting for a destination that is down ({@link
 * dev.lambdaoutbox.store.waiting.SqlWaitingRowStore}): counted and listed along the waiting index,
 * retargeted, or leased so that the poller's statements dead-letter them. Each method runs in the
 * caller's transaction on {@code s}; none commits.
 */
public interface WaitingRowSql {
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
   * as a claim does, so that {@link OutboxSql#park} and {@link OutboxSql#deadLettered} take them.
   */
  void lease(SqlSession s, Collection<UUID> ids, String owner, Instant until);

  /**
   * One audit row per retargeted row ({@link AuditEntry#RETARGET}): the destination it waited for,
   * the one it goes to, and the row as it was (without its payload, which goes on with the row).
   */
  void recordRetargetAudit(
      SqlSession s, List<WaitingRow> rows, String from, String to, AuditInfo audit, Instant now);

  /**
   * How many rows wait for their time, later than {@code now} ({@link
   * dev.lambdaoutbox.store.internal.rows.DueTimes}), counted along the unpublished index no further
   * than {@code cap}.
   */
  long countWaitingForTime(SqlSession s, Instant now, int cap);

  /** The first {@code limit} rows to come due after {@code now}, in due order. */
  List<WaitingForTime.Due> nextDue(SqlSession s, Instant now, int limit);
}
