package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.OutboxStore.Backlog;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * The backlog figures in one round trip. The oldest pending age is the earliest {@code created_at}
 * among the first {@link #SAMPLE} due rows in due order: it reads a bounded stretch of the due
 * index however long the backlog, and is exact whenever fewer rows than that are due (a row's due
 * time never precedes its creation, so only retried rows can be out of order). The dead letters are
 * counted exactly.
 */
public final class BacklogQuery {
  /** Due rows inspected for the oldest creation time. */
  public static final int SAMPLE = 1000;

  private final SqlDialect dialect;
  private final String sql;

  public BacklogQuery(SqlDialect dialect, OutboxTables tables) {
    this.dialect = dialect;
    this.sql =
        "SELECT (SELECT MIN(created_at) FROM (SELECT created_at FROM "
            + tables.messages()
            + " WHERE status = 'PENDING' AND next_attempt_at <= ?"
            + " ORDER BY next_attempt_at, id LIMIT "
            + SAMPLE
            + ") due) AS oldest_created_at, (SELECT COUNT(*) FROM "
            + tables.deadLetters()
            + ") AS dead_letters";
  }

  public Backlog read(Connection c, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setInstant(ps, 1, now, dialect);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Instant oldest = JdbcValues.getInstant(rs, "oldest_created_at", dialect);
        long deadLetters = rs.getLong("dead_letters");
        Duration age =
            oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
        return new Backlog(age, deadLetters);
      }
    }
  }
}
