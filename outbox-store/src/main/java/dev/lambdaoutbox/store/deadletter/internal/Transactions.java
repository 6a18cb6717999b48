package dev.lambdaoutbox.store.deadletter.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs work in one READ COMMITTED transaction on a borrowed connection, and hands the connection
 * back as it came (auto-commit mode and isolation level restored, no transaction open).
 *
 * <p>READ COMMITTED on MySQL too: its default, REPEATABLE READ, would take gap locks for the ids a
 * replay looks up but does not find, and those block the poller's dead-lettering for no gain. A
 * transaction the database chose as a deadlock victim is run again, up to {@link #ATTEMPTS} times;
 * the work must therefore read everything it decides on inside the transaction.
 */
public final class Transactions {
  public static final int ATTEMPTS = 3;

  private Transactions() {}

  public static <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    int isolation = connection.getTransactionIsolation();
    try {
      if (!autoCommit) {
        connection.rollback(); // start clean: nothing of a previous user may leak into this one
      }
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      connection.setAutoCommit(false);
      for (int attempt = 1; ; attempt++) {
        try {
          T result = work.run(connection);
          connection.commit();
          return result;
        } catch (SQLException e) {
          rollback(connection, e);
          if (attempt >= ATTEMPTS || !isDeadlock(e)) {
            throw e;
          }
        } catch (RuntimeException e) {
          rollback(connection, e);
          throw e;
        }
      }
    } finally {
      connection.setAutoCommit(autoCommit);
      connection.setTransactionIsolation(isolation);
    }
  }

  /** PostgreSQL's deadlock_detected, or MySQL's deadlock (1213, SQL state 40001). */
  static boolean isDeadlock(SQLException e) {
    String state = e.getSQLState();
    return "40P01".equals(state) || "40001".equals(state) || e.getErrorCode() == 1213;
  }

  private static void rollback(Connection connection, Throwable failure) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      failure.addSuppressed(e); // the original failure is what the caller must see
    }
  }
}
