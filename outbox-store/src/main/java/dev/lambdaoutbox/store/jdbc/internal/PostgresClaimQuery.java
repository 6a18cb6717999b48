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
 *
 * <p>The UPDATE finds its rows by the physical row ids ({@code ctid}) the locking SELECT returned,
 * through {@code = ANY(ARRAY(...))}: a TID scan, with no second index look-up per row, and a plan
 * shape that cannot change. (Joining {@code due} on {@code id} lets a generic plan, which the
 * server adopts for a statement prepared over and over, pick a hash join over a sequential scan of
 * the whole table: claim cost would grow with the table.) The locked rows cannot move before the
 * UPDATE, as this transaction holds their locks; were a ctid ever stale, that row would simply not
 * be claimed this time.
 */
final class PostgresClaimQuery implements ClaimQuery {
  private static final SqlDialect PG = SqlDialect.POSTGRESQL;

  private final String sql;

  PostgresClaimQuery(OutboxTables tables) {
    String t = tables.messages();
    String due =
        "SELECT ctid, id, next_attempt_at FROM "
            + t
            + " WHERE status = 'PENDING' AND next_attempt_at <= ?"
            + " ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED";
    this.sql =
        "WITH due AS ("
            + due
            + "), claimed AS (UPDATE "
            + t
            + " m SET next_attempt_at = ?, locked_until = ?, locked_by = ?"
            + " WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM due)) RETURNING "
            + MessageRows.columns("m")
            + ") SELECT claimed.* FROM claimed JOIN due USING (id)"
            + " ORDER BY due.next_attempt_at, due.id";
  }

  /** Parameters: now, limit, lease end, lease end, owner. */
  @Override
  public String sql() {
    return sql;
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
