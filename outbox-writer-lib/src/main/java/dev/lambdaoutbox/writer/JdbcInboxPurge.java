package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxException;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.core.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/** The {@link InboxPurge}: one bounded DELETE per call, in a short transaction of its own. */
final class JdbcInboxPurge implements InboxPurge {
  private final OutboxTables tables;
  private final Duration retention;
  private final int maxRows;
  private final Clock clock;

  JdbcInboxPurge(Builder b) {
    this.tables = b.tables;
    this.retention = b.retention;
    this.maxRows = b.maxRows;
    this.clock = b.clock;
  }

  @Override
  public int purge(Jdbi jdbi) {
    return jdbi.withHandle(handle -> purge(handle.getConnection()));
  }

  @Override
  public int purge(Connection connection) {
    Instant cutoff = clock.instant().minus(retention);
    try {
      if (!connection.getAutoCommit()) {
        throw new IllegalArgumentException(
            "connection: has a transaction open (auto-commit is off); the inbox purge commits"
                + " transactions of its own, so give it a connection in auto-commit mode");
      }
      SqlDialect dialect = SqlDialect.of(connection);
      int isolation = connection.getTransactionIsolation();
      // No gap locks on MySQL: consumers inserting new rows never wait for the purge.
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      connection.setAutoCommit(false);
      try {
        int deleted =
            dialect == SqlDialect.POSTGRESQL
                ? deletePostgres(connection, cutoff)
                : deleteMysql(connection, cutoff);
        connection.commit();
        return deleted;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
        connection.setTransactionIsolation(isolation);
      }
    } catch (SQLException e) {
      throw new OutboxException(
          "could not purge inbox rows processed before "
              + cutoff
              + " from "
              + tables.inbox()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** One statement: lock the oldest expired rows nobody else holds, and delete them by ctid. */
  private int deletePostgres(Connection connection, Instant cutoff) throws SQLException {
    String sql =
        "DELETE FROM "
            + tables.inbox()
            + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM "
            + tables.inbox()
            + " WHERE processed_at < ? ORDER BY processed_at LIMIT ? FOR UPDATE SKIP LOCKED))";
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      JdbcValues.setInstant(ps, 1, cutoff, SqlDialect.POSTGRESQL);
      ps.setInt(2, maxRows);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw PermissionDenied.explained(e, sql);
    }
  }

  /** MySQL has no SKIP LOCKED in DELETE: lock the rows with a SELECT, then delete them by key. */
  private int deleteMysql(Connection connection, Instant cutoff) throws SQLException {
    List<String[]> keys = new ArrayList<>();
    String lock =
        "SELECT consumer_name, message_id FROM "
            + tables.inbox()
            + " WHERE processed_at < ? ORDER BY processed_at LIMIT ? FOR UPDATE SKIP LOCKED";
    try (PreparedStatement ps = connection.prepareStatement(lock)) {
      JdbcValues.setInstant(ps, 1, cutoff, SqlDialect.MYSQL);
      ps.setInt(2, maxRows);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          keys.add(new String[] {rs.getString(1), rs.getString(2)});
        }
      }
    } catch (SQLException e) {
      throw PermissionDenied.explained(e, lock);
    }
    if (keys.isEmpty()) {
      return 0;
    }
    String sql =
        "DELETE FROM "
            + tables.inbox()
            + " WHERE (consumer_name, message_id) IN ("
            + String.join(", ", Collections.nCopies(keys.size(), "(?, ?)"))
            + ")";
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      int i = 1;
      for (String[] key : keys) {
        ps.setString(i++, key[0]);
        ps.setString(i++, key[1]);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw PermissionDenied.explained(e, sql);
    }
  }

  @Override
  public Duration retention() {
    return retention;
  }

  @Override
  public int maxRows() {
    return maxRows;
  }
}
