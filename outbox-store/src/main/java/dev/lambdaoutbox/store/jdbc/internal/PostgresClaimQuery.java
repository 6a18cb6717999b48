package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL: one statement. The {@code due} CTE walks the partial due index ({@code WHERE status =
 * 'PENDING'}) in order and locks what it takes, skipping locked rows; the UPDATE leases exactly
 * those rows and returns them, sorted by their due time before the lease moved it.
 */
final class PostgresClaimQuery implements ClaimQuery {
  private static final SqlDialect PG = SqlDialect.POSTGRESQL;

  private final String sql;

  PostgresClaimQuery(OutboxTables tables) {
    String t = tables.messages();
    String due =
        "SELECT id, next_attempt_at FROM "
            + t
            + " WHERE status = 'PENDING' AND next_attempt_at <= ?"
            + " ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED";
    this.sql =
        "WITH due AS ("
            + due
            + "), claimed AS (UPDATE "
            + t
            + " m SET next_attempt_at = ?, locked_until = ?, locked_by = ?"
            + " FROM due WHERE m.id = due.id RETURNING due.next_attempt_at AS due_at, "
            + MessageRows.columns("m")
            + ") SELECT * FROM claimed ORDER BY due_at, id";
  }

  @Override
  public String explain(Connection connection, Instant now, int limit) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("EXPLAIN " + sql)) {
      bind(ps, "explain", limit, now, now.plusSeconds(60));
      return ClaimQuery.lines(ps);
    }
  }

  @Override
  public List<OutboxMessage> claim(
      Connection connection, String owner, int limit, Instant now, Instant leaseEnd)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      bind(ps, owner, limit, now, leaseEnd);
      List<OutboxMessage> claimed = new ArrayList<>(Math.min(limit, 1024));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          claimed.add(MessageRows.read(rs, PG));
        }
      }
      return claimed;
    }
  }

  private static void bind(
      PreparedStatement ps, String owner, int limit, Instant now, Instant leaseEnd)
      throws SQLException {
    JdbcValues.setInstant(ps, 1, now, PG);
    ps.setInt(2, limit);
    JdbcValues.setInstant(ps, 3, leaseEnd, PG);
    JdbcValues.setInstant(ps, 4, leaseEnd, PG);
    ps.setString(5, owner);
  }
}
