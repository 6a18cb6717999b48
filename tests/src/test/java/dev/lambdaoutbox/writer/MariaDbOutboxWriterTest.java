package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

class MariaDbOutboxWriterTest extends OutboxWriterContractTest {

  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  long sessionId(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  boolean isWaitingForLock(Connection observer, long session) throws SQLException {
    try (PreparedStatement ps =
        observer.prepareStatement(
            "SELECT trx_state FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ?")) {
      ps.setLong(1, session);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && "LOCK WAIT".equals(rs.getString(1));
      }
    }
  }

  @Override
  String describeSessions(Connection observer) throws SQLException {
    return describe(
            observer,
            "SELECT trx_mysql_thread_id, trx_state, trx_operation_state, trx_query"
                + " FROM information_schema.INNODB_TRX")
        + describe(
            observer,
            "SELECT id, command, time, state, info FROM information_schema.PROCESSLIST"
                + " WHERE db = DATABASE()");
  }
}
