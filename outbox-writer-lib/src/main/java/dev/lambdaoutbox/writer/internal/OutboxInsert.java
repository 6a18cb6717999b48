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
      String.join(", ", OutboxTables.EVENT_COLUMNS) + ", created_at, next_attempt_at, not_before";

  /**
   * PostgreSQL: a row whose key an outbox row already carries is skipped (the caller compares the
   * count) instead of aborting the caller's whole transaction.
   */
  static final String SKIP_TAKEN_KEY =
      " ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING";

  private OutboxInsert() {}

  /**
   * The SQL for {@code rows} events, created at {@code stamp}; due then too, or, when {@code timed}
   * (some event of the chunk {@link OutboxEvent#waitsForTime()}), each at its own due time.
   */
  public static String sql(
      OutboxTables tables, SqlDialect dialect, int rows, Stamp stamp, boolean timed) {
    return "INSERT INTO "
        + tables.messages()
        + " ("
        + COLUMNS
        + ") VALUES "
        + values(rows, dialect, stamp, timed)
        + (dialect == SqlDialect.POSTGRESQL ? SKIP_TAKEN_KEY : "");
  }

  /**
   * {@code rows} groups of values, one per event, in {@link #COLUMNS} order. The due time goes to
   * both next_attempt_at, which the claim reads and leases and backoff move, and not_before, which
   * stays for the age metric.
   */
  static String values(int rows, SqlDialect dialect, Stamp stamp, boolean timed) {
    String at = stamp.sql(dialect);
    String due = timed ? stamp.dueSql(dialect) : at;
    String row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, " + at + ", " + due + ", " + due + ")";
    return String.join(", ", Collections.nCopies(rows, row));
  }

  /** Whether some of {@code events} wait for their time, and the chunk needs {@code timed} SQL. */
  public static boolean timed(List<OutboxEvent> events) {
    return events.stream().anyMatch(OutboxEvent::waitsForTime);
  }

  /**
   * Binds {@code events} in order, starting at parameter 1, for {@link #sql} with the same {@code
   * stamp} and {@link #timed}.
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
    boolean timed = timed(events);
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
      if (timed) {
        i = stamp.bindDue(ps, i, e, dialect);
        i = stamp.bindDue(ps, i, e, dialect);
      } else {
        i = stamp.bind(ps, i, dialect);
        i = stamp.bind(ps, i, dialect);
      }
    }
    return i;
  }
}
