package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;

/**
 * The INSERT that puts events into the outbox table, one statement for up to {@link #MAX_ROWS}
 * rows.
 */
public final class OutboxInsert {
  /** Rows per statement: keeps the bind parameters far below every driver's limit. */
  public static final int MAX_ROWS = 500;

  static final String COLUMNS =
      "id, aggregate_type, aggregate_id, event_type, payload, headers, destination, idempotency_key,"
          + " occurred_at, created_at, next_attempt_at";

  /**
   * PostgreSQL: a row whose key an outbox row already carries is skipped (the caller compares the
   * count) instead of aborting the caller's whole transaction.
   */
  static final String SKIP_TAKEN_KEY =
      " ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING";

  private OutboxInsert() {}

  /** The SQL for {@code rows} events, created and due at {@code stamp}. */
  public static String sql(OutboxTables tables, SqlDialect dialect, int rows, Stamp stamp) {
    return "INSERT INTO "
        + tables.messages()
        + " ("
        + COLUMNS
        + ") VALUES "
        + values(rows, dialect, stamp)
        + (dialect == SqlDialect.POSTGRESQL ? SKIP_TAKEN_KEY : "");
  }

  /** {@code rows} groups of values, one per event, in {@link #COLUMNS} order. */
  static String values(int rows, SqlDialect dialect, Stamp stamp) {
    String at = stamp.sql(dialect);
    String row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, " + at + ", " + at + ")";
    return String.join(", ", Collections.nCopies(rows, row));
  }

  /**
   * Binds {@code events} in order, starting at parameter 1, for {@link #sql} with the same {@code
   * stamp}.
   */
  public static void bind(
      PreparedStatement ps, List<OutboxEvent> events, Stamp stamp, SqlDialect dialect)
      throws SQLException {
    bind(ps, 1, events, stamp, dialect);
  }

  /** Binds {@code events} from parameter {@code first}; returns the next parameter's index. */
  static int bind(
      PreparedStatement ps, int first, List<OutboxEvent> events, Stamp stamp, SqlDialect dialect)
      throws SQLException {
    int i = first;
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
      i = stamp.bind(ps, i, dialect);
      i = stamp.bind(ps, i, dialect);
    }
    return i;
  }
}
