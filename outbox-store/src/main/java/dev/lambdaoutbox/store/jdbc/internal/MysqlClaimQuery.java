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
import java.util.UUID;

/**
 * MySQL/MariaDB: no UPDATE ... RETURNING, so two statements in one transaction. A locking SELECT
 * walks the {@code (status, next_attempt_at, id)} index in order and locks the rows it returns,
 * skipping locked ones; an UPDATE by id then leases them.
 */
final class MysqlClaimQuery implements ClaimQuery {
  private static final SqlDialect MY = SqlDialect.MYSQL;

  private final String table;
  private final String selectSql;

  MysqlClaimQuery(OutboxTables tables) {
    this.table = tables.messages();
    this.selectSql =
        "SELECT "
            + MessageRows.columns("")
            + " FROM "
            + table
            + " WHERE status = 'PENDING' AND next_attempt_at <= ?"
            + " ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED";
  }

  /** Parameters: now, limit. The UPDATE by ids follows. */
  @Override
  public String sql() {
    return selectSql;
  }

  @Override
  public String explain(Connection connection, Instant now, int limit) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("EXPLAIN FORMAT=JSON " + selectSql)) {
      JdbcValues.setInstant(ps, 1, now, MY);
      ps.setInt(2, limit);
      return ClaimQuery.lines(ps);
    }
  }

  @Override
  public List<OutboxMessage> claim(
      Connection connection, String owner, int limit, Instant now, Instant leaseEnd)
      throws SQLException {
    List<OutboxMessage> claimed = new ArrayList<>(Math.min(limit, 1024));
    try (PreparedStatement ps = connection.prepareStatement(selectSql)) {
      JdbcValues.setInstant(ps, 1, now, MY);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          claimed.add(MessageRows.read(rs, MY));
        }
      }
    }
    List<UUID> ids = claimed.stream().map(OutboxMessage::id).toList();
    for (List<UUID> chunk : SqlLists.chunks(ids)) {
      String update =
          "UPDATE "
              + table
              + " SET next_attempt_at = ?, locked_until = ?, locked_by = ? WHERE id IN "
              + SqlLists.placeholders(chunk.size());
      try (PreparedStatement ps = connection.prepareStatement(update)) {
        JdbcValues.setInstant(ps, 1, leaseEnd, MY);
        JdbcValues.setInstant(ps, 2, leaseEnd, MY);
        ps.setString(3, owner);
        SqlLists.bindIds(ps, 4, chunk);
        ps.executeUpdate();
      }
    }
    return claimed;
  }
}
