package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * What a fresh poller connection is given: driver properties that bound every network wait, and
 * session settings that bound every statement and transaction, so that a database outage fails an
 * invocation fast and no transaction outlives a lease.
 */
public final class SessionSetup {
  private SessionSetup() {}

  /**
   * Driver properties for {@code DriverManager.getConnection}. A property already given in the JDBC
   * URL is left out, so the URL wins. PostgreSQL takes seconds, MySQL Connector/J milliseconds.
   */
  public static Properties driverProperties(
      SqlDialect dialect, String jdbcUrl, ConnectionLimits limits) {
    Properties p = new Properties();
    if (dialect == SqlDialect.POSTGRESQL) {
      putUnlessInUrl(p, jdbcUrl, "connectTimeout", seconds(limits.connectTimeout().toMillis()));
      putUnlessInUrl(p, jdbcUrl, "loginTimeout", seconds(limits.connectTimeout().toMillis()));
      putUnlessInUrl(p, jdbcUrl, "socketTimeout", seconds(limits.socketTimeout().toMillis()));
      putUnlessInUrl(p, jdbcUrl, "tcpKeepAlive", "true");
      putUnlessInUrl(p, jdbcUrl, "ApplicationName", "lambda-outbox");
    } else {
      putUnlessInUrl(
          p, jdbcUrl, "connectTimeout", Long.toString(limits.connectTimeout().toMillis()));
      putUnlessInUrl(p, jdbcUrl, "socketTimeout", Long.toString(limits.socketTimeout().toMillis()));
      putUnlessInUrl(p, jdbcUrl, "tcpKeepAlive", "true");
    }
    return p;
  }

  /**
   * The session settings, run once right after connecting and in auto-commit (a PostgreSQL SET in a
   * transaction that rolls back would be undone).
   */
  public static List<String> sessionStatements(
      SqlDialect dialect, boolean mariaDb, ConnectionLimits limits) {
    long statementMs = limits.statementTimeout().toMillis();
    long idleMs = limits.idleInTransactionTimeout().toMillis();
    List<String> sql = new ArrayList<>();
    if (dialect == SqlDialect.POSTGRESQL) {
      sql.add("SET statement_timeout = " + statementMs);
      sql.add("SET lock_timeout = " + statementMs);
      sql.add("SET idle_in_transaction_session_timeout = " + idleMs);
    } else {
      sql.add("SET SESSION innodb_lock_wait_timeout = " + wholeSeconds(statementMs));
      if (mariaDb) {
        sql.add(
            "SET SESSION max_statement_time = "
                + String.format(Locale.ROOT, "%.3f", statementMs / 1000.0));
        sql.add("SET SESSION idle_transaction_timeout = " + wholeSeconds(idleMs));
      } else {
        sql.add("SET SESSION max_execution_time = " + statementMs);
      }
    }
    return sql;
  }

  /** Applies {@link #sessionStatements} and leaves the connection in manual-commit mode. */
  public static void apply(Connection connection, SqlDialect dialect, ConnectionLimits limits)
      throws SQLException {
    connection.setAutoCommit(true);
    boolean mariaDb =
        dialect == SqlDialect.MYSQL
            && connection
                .getMetaData()
                .getDatabaseProductVersion()
                .toLowerCase(Locale.ROOT)
                .contains("mariadb");
    try (Statement st = connection.createStatement()) {
      for (String sql : sessionStatements(dialect, mariaDb, limits)) {
        st.execute(sql);
      }
    }
    // Read committed everywhere: in MySQL it also stops the claim's range scan from taking gap
    // locks that would block applications inserting new outbox rows.
    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    connection.setAutoCommit(false);
  }

  private static void putUnlessInUrl(Properties p, String url, String name, String value) {
    String lower = url.toLowerCase(Locale.ROOT);
    String key = name.toLowerCase(Locale.ROOT) + "=";
    if (!lower.contains("?" + key) && !lower.contains("&" + key)) {
      p.setProperty(name, value);
    }
  }

  private static String seconds(long millis) {
    return Long.toString(Math.max(1, (millis + 999) / 1000));
  }

  private static long wholeSeconds(long millis) {
    return Math.max(1, (millis + 999) / 1000);
  }
}
