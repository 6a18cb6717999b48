package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.OutboxStoreException;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import java.sql.SQLException;

/**
 * Runs work in one transaction on the container's connection, again when the database chose that
 * transaction as a deadlock victim (up to {@link #ATTEMPTS} times in all). Concurrent pollers
 * claiming (InnoDB locks index gaps as it skips locked rows), two replays, or a replay and the
 * poller may lock rows in an order the database cannot serve both ways; the victim was rolled back
 * whole, so running it again is safe. The work must read everything it decides on inside the
 * transaction.
 */
public final class DeadlockRetry {
  public static final int ATTEMPTS = 3;

  private DeadlockRetry() {}

  public static <T> T inTransaction(
      JdbcConnectionProvider connections, String what, JdbcConnectionProvider.SqlWork<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return connections.inTransaction(what, work);
      } catch (OutboxStoreException e) {
        if (attempt >= ATTEMPTS || !(e.getCause() instanceof SQLException s && isDeadlock(s))) {
          throw e;
        }
      }
    }
  }

  /** PostgreSQL deadlock_detected (40P01) or serialization failure, MySQL deadlock (1213). */
  static boolean isDeadlock(SQLException e) {
    String state = e.getSQLState();
    return "40P01".equals(state) || "40001".equals(state) || e.getErrorCode() == 1213;
  }
}
