package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.writer.OutboxTables;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 *     .idempotencyWindow(Duration.ofHours(24))   // optional: free idempotency keys after it
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
   * may.
   *
   * <p>Each row is read on its own. A row that cannot be read (see {@link UnreadableRow}) is moved
   * to the dead-letter table in the claim's own transaction and reported in {@link
   * Claim#unreadable()}; it never holds up the rows behind it.
   */
  Claim claim(String owner, int limit, Instant now, Duration lease);

  /**
   * Records what became of claimed rows, in one transaction. A retry or dead letter is applied only
   * while {@code owner} still holds the row's lease; a published row leaves the outbox whoever
   * holds it.
   */
  CompletionCounts complete(String owner, List<DeliveryOutcome> outcomes, Instant now);

  /**
   * The retention pass: deletes what has outlived its time (rows kept as SENT past the retention
   * period, idempotency keys past the idempotency window), one short transaction of at most {@link
   * #PURGE_BATCH} rows at a time, until a batch comes back short (caught up) or {@code timeSlice}
   * has passed; a batch starts only within the slice. Safe to run from several pollers at once:
   * each batch skips rows another holds locked.
   */
  PurgeReport purge(Instant now, Duration timeSlice);

  /** Rows one transaction of {@link #purge} deletes at most. */
  int PURGE_BATCH = 2_000;

  /**
   * The age of the oldest due pending row and the number of dead letters, for metrics and alarms.
   */
  Backlog backlog(Instant now);

  /**
   * How many outcomes {@link #complete} applied, by kind, and the older dead letters that the dead
   * letters it wrote replaced (an event id the application reused).
   */
  record CompletionCounts(
      int published,
      int retried,
      int deadLettered,
      int skippedLeaseLost,
      List<SupersededDeadLetter> superseded) {

    public CompletionCounts {
      superseded = List.copyOf(superseded);
    }

    /** Counts without superseded dead letters. */
    public CompletionCounts(int published, int retried, int deadLettered, int skippedLeaseLost) {
      this(published, retried, deadLettered, skippedLeaseLost, List.of());
    }
  }

  /**
   * What one {@link #purge} removed.
   *
   * @param purged rows deleted, by what they were (e.g. {@code "sentRows"}), in the pass's order
   * @param caughtUp every kind's last batch came back short: nothing more was due for purging
   */
  record PurgeReport(Map<String, Long> purged, boolean caughtUp) {
    public PurgeReport {
      purged = Collections.unmodifiableMap(new LinkedHashMap<>(purged));
    }

    /** Rows deleted in all. */
    public long total() {
      return purged.values().stream().mapToLong(Long::longValue).sum();
    }
  }

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
    Duration idempotencyWindow;

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
     * OutboxStore#purge} removes them once older than {@code retention}. Zero turns retention off.
     */
    public Builder retention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.isNegative()) {
        throw new IllegalArgumentException("retention: must not be negative, was " + retention);
      }
      this.retention = retention.isZero() ? null : retention;
      return this;
    }

    /**
     * Delete idempotency keys first seen longer ago than {@code window} from the key table ({@link
     * OutboxStore#purge}), freeing them for reuse; without it the store never deletes a key.
     */
    public Builder idempotencyWindow(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("idempotencyWindow: must be positive, was " + window);
      }
      this.idempotencyWindow = window;
      return this;
    }

    public OutboxStore build() {
      return new SqlOutboxStore(this);
    }
  }
}
