package dev.lambdaoutbox.store.deadletter.internal;

import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.SkipReason;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Puts a dead letter back into the outbox as a fresh PENDING row with the same event id: retry
 * count 0, due now, no lease, no last error, replay count one higher. {@code created_at} becomes
 * the replay time (the row is new to the outbox, and the poller's backlog age must not count the
 * days it lay dead); the original stays in the audit snapshot.
 *
 * <p>The insert itself decides clashes, so a concurrent writer or replay can never make a
 * duplicate: PostgreSQL skips the row ({@code ON CONFLICT DO NOTHING}, which keeps the transaction
 * usable); MySQL refuses the one statement (duplicate key 1062), which leaves the transaction
 * usable too.
 */
public final class OutboxReinsert {
  private static final int MYSQL_DUPLICATE_KEY = 1062;

  private final OutboxTables tables;
  private final SqlDialect dialect;
  private final OutboxLookups lookups;
  private final String sql;

  public OutboxReinsert(OutboxTables tables, SqlDialect dialect) {
    this.tables = tables;
    this.dialect = dialect;
    this.lookups = new OutboxLookups(tables, dialect);
    this.sql =
        "INSERT INTO "
            + tables.messages()
            + " (id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
            + " idempotency_key, occurred_at, created_at, status, retry_count, replay_count,"
            + " next_attempt_at, locked_by, locked_until, last_error_code, last_error_reason,"
            + " first_failed_at, sent_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?, ?, NULL, NULL, NULL, NULL,"
            + " NULL, NULL)"
            + (dialect == SqlDialect.POSTGRESQL ? " ON CONFLICT DO NOTHING" : "");
  }

  /** Null when the row went in; otherwise why it did not. */
  public SkipReason insert(Connection c, DeadLetter row, String destinationOverride, Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setUuid(ps, 1, row.id(), dialect);
      ps.setString(2, row.aggregateType());
      ps.setString(3, row.aggregateId());
      ps.setString(4, row.eventType());
      ps.setString(5, row.payload());
      ps.setString(6, row.headers());
      ps.setString(7, destinationOverride != null ? destinationOverride : row.destination());
      ps.setString(8, row.idempotencyKey());
      JdbcValues.setInstant(ps, 9, row.occurredAt(), dialect);
      JdbcValues.setInstant(ps, 10, now, dialect);
      ps.setInt(11, row.replayCount() + 1);
      JdbcValues.setInstant(ps, 12, now, dialect);
      if (ps.executeUpdate() == 1) {
        return null;
      }
      // PostgreSQL skipped it: the id or the idempotency key is taken.
      return lookups.isInOutbox(c, row.id())
          ? SkipReason.ALREADY_IN_OUTBOX
          : SkipReason.IDEMPOTENCY_KEY_TAKEN;
    } catch (SQLException e) {
      if (e.getErrorCode() != MYSQL_DUPLICATE_KEY) {
        throw e;
      }
      return String.valueOf(e.getMessage()).contains(tables.messages() + "_idem_uq")
          ? SkipReason.IDEMPOTENCY_KEY_TAKEN
          : SkipReason.ALREADY_IN_OUTBOX;
    }
  }
}
