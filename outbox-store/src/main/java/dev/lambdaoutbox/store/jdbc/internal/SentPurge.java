package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Deletes one bounded batch of rows kept as SENT (retention) that were sent before a cutoff, oldest
 * first, along the sent index. A batch at a time keeps each transaction short.
 */
public final class SentPurge {
  private final SqlDialect dialect;
  private final String sql;

  public SentPurge(SqlDialect dialect, OutboxTables tables) {
    this.dialect = dialect;
    String t = tables.messages();
    this.sql =
        dialect == SqlDialect.POSTGRESQL
            ? "DELETE FROM "
                + t
                + " WHERE id IN (SELECT id FROM "
                + t
                + " WHERE status = 'SENT' AND sent_at < ? ORDER BY sent_at LIMIT ?"
                + " FOR UPDATE SKIP LOCKED)"
            : "DELETE FROM "
                + t
                + " WHERE status = 'SENT' AND sent_at < ? ORDER BY sent_at LIMIT ?";
  }

  public int purge(Connection c, Instant cutoff, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setInstant(ps, 1, cutoff, dialect);
      ps.setInt(2, limit);
      return ps.executeUpdate();
    }
  }
}
