package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

class PostgresOutboxWriterTest extends OutboxWriterContractTest {

  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  long sessionId(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  boolean isWaitingForLock(Connection observer, long session) throws SQLException {
    try (PreparedStatement ps =
        observer.prepareStatement("SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?")) {
      ps.setInt(1, Math.toIntExact(session));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && "Lock".equals(rs.getString(1));
      }
    }
  }

  @Override
  String describeSessions(Connection observer) throws SQLException {
    return describe(
        observer,
        "SELECT pid, state, wait_event_type, wait_event, query FROM pg_stat_activity"
            + " WHERE datname = current_database()");
  }
}
