package dev.lambdaoutbox.store.deadletter.internal;

import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The dead-letter table's columns, and a result-set row read back as a {@link DeadLetter}. */
public final class DeadLetterRows {
  /** Every column, in the order the replay copies them. */
  public static final String COLUMNS =
      "id, aggregate_type, aggregate_id, event_type, payload, headers, destination, idempotency_key,"
          + " occurred_at, created_at, attempts, replay_count, error_code, error_reason,"
          + " first_failed_at, last_failed_at, dead_at";

  private DeadLetterRows() {}

  /**
   * {@link #COLUMNS} with the payload cut to its first {@code chars} characters, plus its full
   * length as {@code payload_length}.
   */
  public static String previewColumns(int chars) {
    return COLUMNS.replace(
        "payload,",
        "substr(payload, 1, " + chars + ") AS payload, char_length(payload) AS payload_length,");
  }

  public static DeadLetter read(ResultSet rs, SqlDialect dialect) throws SQLException {
    return new DeadLetter(
        JdbcValues.getUuid(rs, "id", dialect),
        rs.getString("aggregate_type"),
        rs.getString("aggregate_id"),
        rs.getString("event_type"),
        rs.getString("payload"),
        rs.getString("headers"),
        rs.getString("destination"),
        rs.getString("idempotency_key"),
        JdbcValues.getInstant(rs, "occurred_at", dialect),
        JdbcValues.getInstant(rs, "created_at", dialect),
        rs.getInt("attempts"),
        rs.getInt("replay_count"),
        rs.getString("error_code"),
        rs.getString("error_reason"),
        JdbcValues.getInstant(rs, "first_failed_at", dialect),
        JdbcValues.getInstant(rs, "last_failed_at", dialect),
        JdbcValues.getInstant(rs, "dead_at", dialect));
  }

  public static List<DeadLetter> readAll(ResultSet rs, SqlDialect dialect) throws SQLException {
    List<DeadLetter> rows = new ArrayList<>();
    while (rs.next()) {
      rows.add(read(rs, dialect));
    }
    return rows;
  }
}
