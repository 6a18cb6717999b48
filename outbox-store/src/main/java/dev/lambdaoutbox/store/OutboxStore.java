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
   * may. With {@link Ordering#AGGREGATE}, only the oldest unpublished row of each aggregate that is
   * not parked, and only while no earlier row of it waits (leased, backing off, deferred).
   */
  List<OutboxMessage> claim(String owner, int limit, Instant now, Duration lease);

  /**
   * Records what became of claimed rows, in one transaction, and says per row what was really done
   * ({@link CompletionReport}, in the order given). A retry, dead letter, deferral or release is
   * applied only while {@code owner} still holds the row's lease; a published row leaves the outbox
   * whoever holds it. An outcome not applied is {@link Completion.Result#LEASE_LOST}, with who
   * holds the row now or that it is gone.
   */
  CompletionReport complete(String owner, List<DeliveryOutcome> outcomes, Instant now);

  /**
   * Deletes up to {@code limit} rows kept as SENT (retention) that were sent before {@code cutoff}.
   */
  int purgeSent(Instant cutoff, int limit);

  /** What alarms watch, read in one round trip (see {@link Backlog}). */
  Backlog backlog(Instant now);

  /** The destinations found down, shared by every poller over these tables. */
  DestinationHealthStore destinationHealth();

  /**
   * Most dead letters {@link Backlog#deadLetters()} counts; beyond it the count stops, so that it
   * costs the same at a million dead letters as at ten thousand.
   */
  int DEAD_LETTER_COUNT_CAP = 10_000;

  /**
   * Most parked keys, and most parked events, {@link Backlog#parkedKeys()} and {@link
   * Backlog#parkedEvents()} count; beyond it the counts stop.
   */
  int PARKED_COUNT_CAP = 10_000;

  /**
   * @param oldestUnpublishedAge how long the oldest PENDING row has existed, whatever it waits for
   *     (due, backing off, deferred, leased); zero when there is none. A replayed row counts from
   *     its replay.
   * @param deadLetters rows in the dead-letter table, counted up to {@link #DEAD_LETTER_COUNT_CAP}
   *     plus one: above the cap it is {@code DEAD_LETTER_COUNT_CAP + 1}, meaning "more"
   * @param destinationsDown destinations marked down and not stale (see {@link
   *     DestinationHealthStore#STALE_AFTER})
   * @param destinationsMisconfigured those of them marked {@link DestinationState#MISCONFIGURED}
   * @param staleDestinations health rows that are stale and not counted
   * @param parkedKeys aggregates parked behind a dead letter ({@link Ordering#AGGREGATE}), counted
   *     up to {@link #PARKED_COUNT_CAP} plus one
   * @param parkedEvents their events waiting in the outbox, counted up to {@link #PARKED_COUNT_CAP}
   *     plus one
   */
  record Backlog(
      Duration oldestUnpublishedAge,
      long deadLetters,
      int destinationsDown,
      int destinationsMisconfigured,
      int staleDestinations,
      long parkedKeys,
      long parkedEvents) {

    /** Whether there are more dead letters than {@link #DEAD_LETTER_COUNT_CAP}. */
    public boolean deadLettersCapped() {
      return deadLetters > DEAD_LETTER_COUNT_CAP;
    }

    /** Whether there are more parked keys or parked events than {@link #PARKED_COUNT_CAP}. */
    public boolean parkedCapped() {
      return parkedKeys > PARKED_COUNT_CAP || parkedEvents > PARKED_COUNT_CAP;
    }
  }

  /** Configures an {@link OutboxStore}; not thread-safe. */
  final class Builder {
    final SqlExecutor executor;
    OutboxTables tables = OutboxTables.defaults();
    Duration retention;
    Ordering ordering = Ordering.NONE;

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

    /**
     * How claims treat the events of one aggregate ({@link Ordering}); {@link Ordering#NONE} when
     * not given. With {@link Ordering#AGGREGATE} the tables need migration V5.
     */
    public Builder ordering(Ordering ordering) {
      this.ordering = Objects.requireNonNull(ordering, "ordering");
      return this;
    }

    public OutboxStore build() {
      return new SqlOutboxStore(this);
    }
  }
}
