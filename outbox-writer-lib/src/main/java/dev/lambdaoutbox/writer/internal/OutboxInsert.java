package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The INSERT that puts events into the outbox table, one statement for up to {@link #MAX_ROWS}
 * rows.
 */
public final class OutboxInsert {
  /** Rows per statement: keeps the bind parameters far below every driver's limit. */
  public static final int MAX_ROWS = 500;

  private static final String COLUMNS =
      "id, aggregate_type, aggregate_id, event_type, payload, headers, destination, idempotency_key,"
          + " occurred_at, created_at, next_attempt_at";
  private static final String ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private OutboxInsert() {}

  /**
   * The SQL for {@code rows} events. In PostgreSQL a clash on the idempotency key inserts nothing
   * for that row (the caller compares the update count) instead of aborting the caller's whole
   * transaction.
   */
  public static String sql(OutboxTables tables, SqlDialect dialect, int rows) {

    StringBuilder sql =
        new StringBuilder(96 + rows * (ROW.length() + 2))
            .append("INSERT INTO ")
            .append(tables.messages())
            .append(" (")
            .append(COLUMNS)
            .append(") VALUES ");
    for (int i = 0; i < rows; i++) {
      sql.append(i == 0 ? "" : ", ").append(ROW);
    }
    if (dialect == SqlDialect.POSTGRESQL) {
      sql.append(" ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING");
    }
    return sql.toString();
  }

  /** Binds {@code events} in order, starting at parameter 1; all become due at {@code now}. */
  public static void bind(
      PreparedStatement ps, List<OutboxEvent> events, Instant now, SqlDialect dialect)
      throws SQLException {
    int i = 1;
    for (OutboxEvent e : events) {
      JdbcValues.setUuid(ps, i++, e.id(), dialect);
      ps.setString(i++, e.aggregateType());
      ps.setString(i++, e.aggregateId());
      ps.setString(i++, e.eventType());
      ps.setString(i++, e.payload());
      ps.setString(i++, JsonSupport.encodeHeaders(e.headers()));
      ps.setString(i++, e.destination().orElse(null));
      ps.setString(i++, e.idempotencyKey().orElse(null));
      JdbcValues.setInstant(ps, i++, e.occurredAt(), dialect);
      JdbcValues.setInstant(ps, i++, now, dialect);
      JdbcValues.setInstant(ps, i++, now, dialect);
    }
  }
}
