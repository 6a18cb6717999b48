package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import dev.lambdaoutbox.writer.internal.JsonSupport;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The outbox columns a claim returns, and how a result row becomes an {@link OutboxMessage}. */
public final class MessageRows {
  /** The columns {@link #read} needs, for a SELECT or RETURNING list ({@code alias.} prefixed). */
  public static String columns(String alias) {
    String p = alias.isEmpty() ? "" : alias + ".";
    return String.join(
        ", ",
        p + "id",
        p + "aggregate_type",
        p + "aggregate_id",
        p + "event_type",
        p + "payload",
        p + "headers",
        p + "destination",
        p + "idempotency_key",
        p + "occurred_at",
        p + "created_at",
        p + "retry_count",
        p + "replay_count",
        p + "first_failed_at");
  }

  private MessageRows() {}

  public static OutboxMessage read(ResultSet rs, SqlDialect dialect) throws SQLException {
    return new OutboxMessage(
        JdbcValues.getUuid(rs, "id", dialect),
        rs.getString("aggregate_type"),
        rs.getString("aggregate_id"),
        rs.getString("event_type"),
        rs.getString("payload"),
        JsonSupport.decodeHeaders(rs.getString("headers")),
        rs.getString("destination"),
        rs.getString("idempotency_key"),
        JdbcValues.getInstant(rs, "occurred_at", dialect),
        JdbcValues.getInstant(rs, "created_at", dialect),
        rs.getInt("retry_count"),
        rs.getInt("replay_count"),
        JdbcValues.getInstant(rs, "first_failed_at", dialect));
  }
}
