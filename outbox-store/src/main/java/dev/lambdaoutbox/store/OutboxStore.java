package dev.lambdaoutbox.store;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

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
 * <p>Thread-safe. By default every method runs on the one executor given, so calls from several
 * threads take turns on its connection; with {@link Builder#completionsOnSecondConnection()},
 * {@link #complete} and the {@link #destinationHealth()} store run on a second connection, so that
 * outcomes are recorded while the next rows are claimed.
 *
 * <p>Times are the database's ({@link #databaseClock()}), stored to the microsecond.
 */
public interface OutboxStore {
  /** A store whose statements run on {@code executor}, in the executor's SQL dialect. */
  static Builder builder(SqlExecutor executor) {
    return new Builder(executor);
  }

  /**
   * Claims up to {@code limit} due rows (PENDING, {@code next_attempt_at <= now}), oldest first,
   * skipping rows other pollers hold locked, and leases them to {@code owner} until {@code now +
   * lease}: until then no other poller claims them, and after it (say the owner crashed) any poller
   * may. With {@link Ordering#AGGREGATE}, only the oldest unpublished row of each aggregate that is
   * not parked, and only while no earlier row of it waits (leased, backing off, deferred). Over a
   * carrier that bounds one result (the RDS Data API answers at most 1 MiB), fewer than {@code
   * limit} rows may come back while more are due, when their sizes would not fit; the first due row
   * always comes back.
   *
   * <p>Each row is read on its own. A row that cannot be read (see {@link UnreadableRow}) is moved
   * to the dead-letter table in the claim's own transaction and reported in {@link
   * Claim#unreadable()}; it never holds up the other rows claimed with it. With {@link
   * Ordering#AGGREGATE} an unreadable head parks its aggregate first, as any dead-lettered head
   * does ({@link Claim#parked()}).
   */
  Claim claim(String owner, int limit, Instant now, Duration lease);

  /**
   * Records what became of claimed rows, in one transaction, and says per row what was really done
   * ({@link CompletionReport}, in the order given). Every outcome, published included, is applied
   * only to a row {@code owner} still holds: a row claimed since by another invocation, or replayed
   * from the dead letters under the same id, is not settled by a late outcome of an earlier claim.
   * An outcome not applied is {@link Completion.Result#LEASE_LOST}, with who holds the row now or
   * that it is gone.
   */
  CompletionReport complete(String owner, List<DeliveryOutcome> outcomes, Instant now);

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

  /** What alarms watch, read in one round trip (see {@link Backlog}). */
  Backlog backlog(Instant now);

  /** The destinations found down, shared by every poller over these tables. */
  DestinationHealthStore destinationHealth();

  /**
   * The database's clock, read through this store's executor ({@link DatabaseClock}): what the
   * poller passes as each call's {@code now} outside tests, so that every time these tables hold is
   * compared with the clock that wrote it.
   */
  DatabaseClock databaseClock();

  /**
   * How many rows are due (PENDING, {@code next_attempt_at <= now}), counting at most {@code
   * limit}: a bounded walk of the due index, so its cost does not grow with the backlog. For
   * deciding how many pollers a backlog needs.
   *
   * <p>With {@link Ordering#AGGREGATE} it counts, of the due index's front (four rows per row of
   * {@code limit}), the rows of aggregates that are not parked: a parked aggregate's events are
   * never counted, whatever their number, so parked rows never make a backlog that asks for more
   * pollers (while they fill the front, fewer rows are counted). Rows queued behind a head in
   * flight are counted, though no claim can take them before their head is published: they are work
   * for the rounds to come. Pollers beyond what the aggregates with a due head can keep busy find
   * nothing to claim and stop.
   */
  int countDue(Instant now, int limit);

  /** The lease of the woken run that lingers for the commits that follow its wake-up. */
  String WAKE_LINGER_LEASE = "wake-linger";

  /**
   * Takes or renews the poller lease {@code name} (a row of {@code outbox_poller_leases}) for
   * {@code owner} until {@code until}, if it has run out at {@code now} or is the owner's already;
   * returns whether the owner holds it. False, too, when the lease has no row.
   */
  boolean holdLease(String name, String owner, Instant now, Instant until);

  /** Gives the poller lease {@code name} back if {@code owner} holds it; returns whether it did. */
  boolean releaseLease(String name, String owner, Instant now);

  /**
   * The whole payload of the PENDING row {@code id}: a claim returns a payload over 256 KiB cut,
   * and the claim check, which stores it in S3, needs every byte. Read in pieces of at most 256 KiB
   * (each fits the Data API's 1 MiB response), assembled only when the payload holds at most {@code
   * maxBytes} UTF-8 bytes ({@link FullPayload.OverBudget} otherwise, read no further).
   */
  FullPayload fullPayload(UUID id, long maxBytes);

  /** Configures an {@link OutboxStore}; not thread-safe. */
  final class Builder {
    final SqlExecutor executor;
    OutboxTables tables = OutboxTables.defaults();
    Duration retention;
    Ordering ordering = Ordering.NONE;
    Duration idempotencyWindow;
    boolean secondConnection;
    Boolean reserveAggregates;
    int parkingChunkSize = Ordering.PARKING_CHUNK_SIZE;

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
     * How claims treat the events of one aggregate ({@link Ordering}); {@link Ordering#NONE} when
     * not given. With {@link Ordering#AGGREGATE} the tables need migration V9: claims take the
     * aggregates in turn from a cursor all pollers share ({@code outbox_claim_cursors}).
     */
    public Builder ordering(Ordering ordering) {
      this.ordering = Objects.requireNonNull(ordering, "ordering");
      return this;
    }

    /**
     * With {@link Ordering#AGGREGATE}, whether a claim first reserves the aggregates it walks, in a
     * short transaction of its own that moves the shared cursor past them, then locks and leases
     * their heads in a second one (true); or walks, locks and leases in one transaction that moves
     * the cursor as its last statement (false). Reserving first makes concurrent claims walk
     * disjoint runs of aggregates, where claims that start together otherwise walk the same ones
     * and all but one walk on past the heads the first took. When not given: true on MySQL and
     * MariaDB, false on PostgreSQL, whose walk is one statement.
     */
    public Builder reserveAggregates(boolean reserve) {
      this.reserveAggregates = reserve;
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

    /**
     * Run {@link OutboxStore#complete} and the destination health store on a second connection of
     * the executor's ({@link SqlExecutor#secondConnection()}; over the Data API the same client),
     * so that one thread may record outcomes while another claims. Over JDBC this is one more
     * database connection per store.
     */
    public Builder completionsOnSecondConnection() {
      this.secondConnection = true;
      return this;
    }

    /**
     * With {@link Ordering#AGGREGATE}, the most rows behind one head that backs off or is deferred
     * which a completion holds back (moves to the head's due time), the first in seq order: the
     * rest cannot go before the head either way, and a short claim moves those it meets. 100 to
     * 50,000; {@value Ordering#PARKING_CHUNK_SIZE} when not given.
     */
    public Builder parkingChunkSize(int rows) {
      if (rows < 100 || rows > 50_000) {
        throw new IllegalArgumentException("parkingChunkSize: must be 100 to 50000, was " + rows);
      }
      this.parkingChunkSize = rows;
      return this;
    }

    public OutboxStore build() {
      return new SqlOutboxStore(this);
    }
  }
}
