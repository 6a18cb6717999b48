package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * How due rows are claimed: the oldest due PENDING rows ({@code next_attempt_at <= now}, in {@code
 * next_attempt_at, id} order, along the due index), skipping rows another transaction holds locked,
 * are stamped with the lease ({@code locked_by}, {@code locked_until}, and {@code next_attempt_at}
 * = the lease end, so they stop being due until the lease runs out) and returned in that order. The
 * caller commits.
 */
public interface ClaimQuery {
  List<OutboxMessage> claim(
      Connection connection, String owner, int limit, Instant now, Instant leaseEnd)
      throws SQLException;

  /** The statement that finds and leases the rows, with JDBC {@code ?} parameters. */
  String sql();

  /**
   * The database's plan for the claim statement (the whole UPDATE in PostgreSQL, the locking SELECT
   * in MySQL), without running it: to check that it walks the due index.
   */
  String explain(Connection connection, Instant now, int limit) throws SQLException;

  /** Every row of a result set, one line per row, columns separated by tabs. */
  static String lines(PreparedStatement ps) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (ResultSet rs = ps.executeQuery()) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= columns; i++) {
          plan.append(i == 1 ? "" : "\t").append(rs.getString(i));
        }
        plan.append('\n');
      }
    }
    return plan.toString();
  }

  static ClaimQuery of(SqlDialect dialect, OutboxTables tables) {
    return dialect == SqlDialect.POSTGRESQL
        ? new PostgresClaimQuery(tables)
        : new MysqlClaimQuery(tables);
  }
}
