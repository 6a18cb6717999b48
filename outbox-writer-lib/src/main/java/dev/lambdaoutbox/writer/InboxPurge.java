package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxTables;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;

/**
 * Deletes inbox rows older than the retention window, a bounded number at a time, so the inbox
 * table stops growing by one row per consumed message forever. Schedule it; it never runs by
 * itself.
 *
 * <pre>{@code
 * InboxPurge purge = InboxPurge.builder().build();   // 15 days, 1,000 rows a call
 * int deleted;
 * do {
 *   deleted = purge.purge(jdbi);                     // one short transaction of its own
 * } while (deleted == purge.maxRows() && timeLeft());
 * }</pre>
 *
 * <p>A row must outlive every redelivery of its message, or the message is processed again. The
 * default window is SQS's longest retention (14 days, counted from the first send) plus a day for
 * clocks and late purges; keep it longer than every feeding queue's retention and than anything you
 * may still replay. Each call deletes at most {@link #maxRows()} of the oldest expired rows in one
 * short READ COMMITTED transaction with {@code SKIP LOCKED}: consumers never wait for it.
 */
public interface InboxPurge {
  /** SQS's longest retention (14 days) plus one day. */
  Duration DEFAULT_RETENTION = Duration.ofDays(15);

  int DEFAULT_MAX_ROWS = 1_000;

  /** The most rows one call may delete: keeps each transaction short. */
  int MAX_ROWS_LIMIT = 10_000;

  static Builder builder() {
    return new Builder();
  }

  /**
   * Deletes at most {@link #maxRows()} rows processed before now minus the retention window, in a
   * transaction of its own on a connection of {@code jdbi}'s; returns how many it deleted.
   */
  int purge(Jdbi jdbi);

  /**
   * As {@link #purge(Jdbi)}, on {@code connection}, which must be in auto-commit mode (the purge
   * commits its own transaction, so it refuses to run inside one of the caller's). The connection's
   * auto-commit mode and isolation level are restored afterwards.
   */
  int purge(Connection connection);

  /** The retention window: rows processed longer ago than this are deleted. */
  Duration retention();

  /** The most rows one call deletes. */
  int maxRows();

  /** Configures an {@link InboxPurge}. */
  final class Builder {
    OutboxTables tables = OutboxTables.defaults();
    Duration retention = DEFAULT_RETENTION;
    int maxRows = DEFAULT_MAX_ROWS;
    Clock clock = Clock.systemUTC();

    private Builder() {}

    /** Prefix of the inbox table name, as given to {@link Inbox#create(OutboxTables)}. */
    public Builder tables(OutboxTables tables) {
      this.tables = Objects.requireNonNull(tables, "tables");
      return this;
    }

    /** How long a processed message id is kept; default 15 days. Must be positive. */
    public Builder retention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("retention: must be positive, was " + retention);
      }
      this.retention = retention;
      return this;
    }

    /** The most rows one call deletes; 1 to 10,000, default 1,000. */
    public Builder maxRows(int maxRows) {
      if (maxRows < 1 || maxRows > MAX_ROWS_LIMIT) {
        throw new IllegalArgumentException(
            "maxRows: must be between 1 and " + MAX_ROWS_LIMIT + ", was " + maxRows);
      }
      this.maxRows = maxRows;
      return this;
    }

    /** The clock "now" is read from; the system UTC clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public InboxPurge build() {
      return new JdbcInboxPurge(this);
    }
  }
}
