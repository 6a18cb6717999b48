package dev.lambdaoutbox.store.jdbc.internal;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/** Classifies driver exceptions by what the caller should do about them. */
public final class SqlErrors {
  /** MySQL/MariaDB ER_ACCESS_DENIED_ERROR. */
  private static final int MYSQL_ACCESS_DENIED = 1045;

  /** MySQL/MariaDB ER_DUP_ENTRY. */
  private static final int MYSQL_DUPLICATE_KEY = 1062;

  /** MySQL/MariaDB ER_LOCK_DEADLOCK. */
  private static final int MYSQL_DEADLOCK = 1213;

  private SqlErrors() {}

  /**
   * The server refused the login: PostgreSQL 28P01 (wrong password) or 28000 (no such role, or
   * pg_hba refused), MySQL error 1045. A rotated secret shows up this way.
   */
  public static boolean isLoginRefused(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      String state = s.getSQLState();
      if ("28P01".equals(state)
          || "28000".equals(state)
          || s.getErrorCode() == MYSQL_ACCESS_DENIED) {
        return true;
      }
    }
    return false;
  }

  /**
   * The connection itself failed or was lost (SQLState class 08, or a socket timeout), so it must
   * not be used again. Ordinary statement errors leave it usable after a rollback.
   */
  public static boolean isConnectionLost(SQLException e) {
    if (e instanceof SQLRecoverableException
        || e instanceof SQLNonTransientConnectionException
        || e instanceof SQLTransientConnectionException) {
      return true;
    }
    String state = e.getSQLState();
    // 08: connection exception; 57P01..57P03: the server shut down or terminated the backend.
    return state != null && (state.startsWith("08") || state.startsWith("57P"));
  }

  /**
   * The database chose the transaction as a deadlock victim, or failed it for serialization:
   * PostgreSQL 40P01 or 40001, MySQL error 1213. It was rolled back whole and may run again.
   */
  public static boolean isDeadlock(SQLException e) {
    String state = e.getSQLState();
    return "40P01".equals(state) || "40001".equals(state) || e.getErrorCode() == MYSQL_DEADLOCK;
  }

  /** A unique or primary key violation: PostgreSQL 23505, MySQL error 1062. */
  public static boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState()) || e.getErrorCode() == MYSQL_DUPLICATE_KEY;
  }
}
