package dev.lambdaoutbox.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The outbox table as the poller uses it. Every method runs its own short transaction and commits
 * before it returns; none stays open while messages are published.
 */
public interface OutboxStore {
  /**
   * Claims up to {@code limit} due rows (PENDING, {@code next_attempt_at <= now}), oldest first,
   * skipping rows other pollers hold locked, and leases them to {@code owner} until {@code now +
   * lease}: until then no other poller claims them, and after it (say the owner crashed) any poller
   * may.
   */
  List<OutboxMessage> claim(String owner, int limit, Instant now, Duration lease);

  /**
   * Records what became of claimed rows, in one transaction. A retry or dead letter is applied only
   * while {@code owner} still holds the row's lease; a published row leaves the outbox whoever
   * holds it.
   */
  CompletionCounts complete(String owner, List<DeliveryOutcome> outcomes, Instant now);

  /**
   * Deletes up to {@code limit} rows kept as SENT (retention) that were sent before {@code cutoff}.
   */
  int purgeSent(Instant cutoff, int limit);

  /**
   * The age of the oldest due pending row and the number of dead letters, for metrics and alarms.
   */
  Backlog backlog(Instant now);

  /** How many outcomes {@link #complete} applied, by kind. */
  record CompletionCounts(int published, int retried, int deadLettered, int skippedLeaseLost) {}

  /**
   * @param oldestPendingAge how long the oldest due PENDING row has waited since it was created;
   *     zero when none
   * @param deadLetters rows in the dead-letter table
   */
  record Backlog(Duration oldestPendingAge, long deadLetters) {}
}
