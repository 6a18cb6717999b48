package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.writer.OutboxTables;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The outbox table as the poller uses it. Every method runs its own short transaction and commits
 * before it returns; none stays open while messages are published. On failure the transaction is
 * rolled back and an {@link OutboxStoreException} says what could not be done.
 *
 * <pre>{@code
 * OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections))  // or a DataApiExecutor
 *     .tables(settings.tables())
 *     .retention(Duration.ofDays(7))   // optional: keep published rows as SENT
 *     .build();
 * }</pre>
 *
 * <p>Times are stored to the microsecond; the instants given are truncated to it.
 */
public interface OutboxStore {
  /** The width of {@code locked_by}: the longest owner. */
  int MAX_OWNER_LENGTH = 128;

  /** A store whose statements run on {@code executor}, in the executor's SQL dialect. */
  static Builder builder(SqlExecutor executor) {
    return new Builder(executor);
  }

  /**
   * Claims up to {@code limit} due rows (PENDING, {@code next_attempt_at <= now}), oldest first,
   * skipping rows other pollers hold locked, and leases them to {@code owner} until {@code now +
   * lease}: until then no other poller claims them, and after it (say the owner crashed) any poller
   * may. Over a carrier that bounds one result (the RDS Data API answers at most 1 MiB), fewer than
   * {@code limit} rows may come back while more are due, when their sizes would not fit; the first
   * due row always comes back.
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

  /**
   * How many rows are due (PENDING, {@code next_attempt_at <= now}), counting at most {@code
   * limit}: a bounded walk of the due index, so its cost does not grow with the backlog. For
   * deciding how many pollers a backlog needs.
   */
  int countDue(Instant now, int limit);

  /** How many outcomes {@link #complete} applied, by kind. */
  record CompletionCounts(int published, int retried, int deadLettered, int skippedLeaseLost) {}

  /**
   * @param oldestPendingAge how long the oldest due PENDING row has waited since it was created;
   *     zero when none
   * @param deadLetters rows in the dead-letter table
   */
  record Backlog(Duration oldestPendingAge, long deadLetters) {}

  /** Configures an {@link OutboxStore}; not thread-safe. */
  final class Builder {
    final SqlExecutor executor;
    OutboxTables tables = OutboxTables.defaults();
    Duration retention;

    private Builder(SqlExecutor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
    }

    /** The outbox tables; the default names when not given. */
    public Builder tables(OutboxTables tables) {
      this.tables = Objects.requireNonNull(tables, "tables");
      return this;
    }

    /**
     * Keep published rows as SENT (with {@code sent_at}) instead of deleting them; {@link
     * OutboxStore#purgeSent} removes them once older than {@code retention}. Zero turns retention
     * off.
     */
    public Builder retention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.isNegative()) {
        throw new IllegalArgumentException("retention: must not be negative, was " + retention);
      }
      this.retention = retention.isZero() ? null : retention;
      return this;
    }

    public OutboxStore build() {
      return new SqlOutboxStore(this);
    }
  }
}
