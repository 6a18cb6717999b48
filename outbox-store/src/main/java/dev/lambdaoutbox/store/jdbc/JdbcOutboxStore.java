package dev.lambdaoutbox.store.jdbc;

import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.internal.BacklogQuery;
import dev.lambdaoutbox.store.jdbc.internal.ClaimQuery;
import dev.lambdaoutbox.store.jdbc.internal.CompletionWriter;
import dev.lambdaoutbox.store.jdbc.internal.DeadlockRetry;
import dev.lambdaoutbox.store.jdbc.internal.SentPurge;
import dev.lambdaoutbox.writer.OutboxTables;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link OutboxStore} over JDBC, for PostgreSQL and MySQL/MariaDB, on the one connection of a
 * {@link JdbcConnectionProvider}. Each method is one short transaction, committed before it
 * returns; on failure it is rolled back and an {@link dev.lambdaoutbox.store.OutboxStoreException}
 * says what could not be done.
 *
 * <pre>{@code
 * OutboxStore store = JdbcOutboxStore.builder(connections)
 *     .tables(settings.tables())
 *     .retention(Duration.ofDays(7))   // optional: keep published rows as SENT
 *     .build();
 * }</pre>
 *
 * <p>Times are stored to the microsecond; the instants given are truncated to it.
 */
public final class JdbcOutboxStore implements OutboxStore {
  /** The width of {@code locked_by}. */
  public static final int MAX_OWNER_LENGTH = 128;

  private final JdbcConnectionProvider connections;
  private final OutboxTables tables;
  private final Duration retention;
  private final ClaimQuery claimQuery;
  private final CompletionWriter completionWriter;
  private final SentPurge sentPurge;
  private final BacklogQuery backlogQuery;

  private JdbcOutboxStore(Builder b) {
    this.connections = b.connections;
    this.tables = b.tables;
    this.retention = b.retention;
    this.claimQuery = ClaimQuery.of(connections.dialect(), tables);
    this.completionWriter = new CompletionWriter(connections.dialect(), tables, retention != null);
    this.sentPurge = new SentPurge(connections.dialect(), tables);
    this.backlogQuery = new BacklogQuery(connections.dialect(), tables);
  }

  /** A store on the default table names that deletes published rows. */
  public static JdbcOutboxStore create(JdbcConnectionProvider connections) {
    return builder(connections).build();
  }

  public static Builder builder(JdbcConnectionProvider connections) {
    return new Builder(connections);
  }

  /** How long published rows are kept as SENT; empty when they are deleted at once. */
  public Optional<Duration> retention() {
    return Optional.ofNullable(retention);
  }

  public OutboxTables tables() {
    return tables;
  }

  @Override
  public List<OutboxMessage> claim(String owner, int limit, Instant now, Duration lease) {
    requireOwner(owner);
    if (limit <= 0) {
      throw new IllegalArgumentException("limit: must be positive, was " + limit);
    }
    Objects.requireNonNull(lease, "lease");
    if (lease.isZero() || lease.isNegative()) {
      throw new IllegalArgumentException("lease: must be positive, was " + lease);
    }
    Instant at = micros(now);
    Instant leaseEnd = micros(at.plus(lease));
    return DeadlockRetry.inTransaction(
        connections,
        "claim up to " + limit + " rows from " + tables.messages() + " for " + owner,
        c -> claimQuery.claim(c, owner, limit, at, leaseEnd));
  }

  @Override
  public CompletionCounts complete(String owner, List<DeliveryOutcome> outcomes, Instant now) {
    requireOwner(owner);
    Objects.requireNonNull(outcomes, "outcomes");
    if (outcomes.isEmpty()) {
      return new CompletionCounts(0, 0, 0, 0);
    }
    Instant at = micros(now);
    return DeadlockRetry.inTransaction(
        connections,
        "record " + outcomes.size() + " outcomes in " + tables.messages() + " for " + owner,
        c -> completionWriter.write(c, owner, outcomes, at));
  }

  @Override
  public int purgeSent(Instant cutoff, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit: must be positive, was " + limit);
    }
    Instant at = micros(cutoff);
    return connections.inTransaction(
        "purge SENT rows sent before " + at + " from " + tables.messages(),
        c -> sentPurge.purge(c, at, limit));
  }

  @Override
  public Backlog backlog(Instant now) {
    Instant at = micros(now);
    return connections.inTransaction(
        "read the backlog of " + tables.messages(), c -> backlogQuery.read(c, at));
  }

  private static void requireOwner(String owner) {
    if (owner == null || owner.isBlank() || owner.length() > MAX_OWNER_LENGTH) {
      throw new IllegalArgumentException(
          "owner: must be 1 to " + MAX_OWNER_LENGTH + " characters, was '" + owner + "'");
    }
  }

  private static Instant micros(Instant instant) {
    return Objects.requireNonNull(instant, "now").truncatedTo(ChronoUnit.MICROS);
  }

  /** Configures a {@link JdbcOutboxStore}; not thread-safe. */
  public static final class Builder {
    private final JdbcConnectionProvider connections;
    private OutboxTables tables = OutboxTables.defaults();
    private Duration retention;

    private Builder(JdbcConnectionProvider connections) {
      this.connections = Objects.requireNonNull(connections, "connections");
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

    public JdbcOutboxStore build() {
      return new JdbcOutboxStore(this);
    }
  }
}
