package dev.lambdaoutbox.store.jdbc;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.CredentialsSource;
import dev.lambdaoutbox.store.config.DatabaseCredentials;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.config.DatabaseTls;
import dev.lambdaoutbox.store.config.JdbcUrls;
import dev.lambdaoutbox.store.jdbc.internal.Scrubbed;
import dev.lambdaoutbox.store.jdbc.internal.SessionSetup;
import dev.lambdaoutbox.store.jdbc.internal.SqlErrors;
import dev.lambdaoutbox.store.jdbc.internal.TlsProperties;
import dev.lambdaoutbox.store.model.OutboxStoreException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * The one database connection of a Lambda container: built once, outside the handler, and reused by
 * every warm invocation. No pool: a thread that talks to the database beside another has a provider
 * of its own ({@link #sibling()}).
 *
 * <ul>
 *   <li>It connects lazily, on first use, with the timeouts and session limits of {@link
 *       ConnectionLimits} (see {@link SessionSetup}), in manual-commit mode at read committed.
 *   <li>Before reuse it checks the connection with {@link Connection#isValid} only when it has not
 *       been used for {@link ConnectionLimits#validationInterval()} or the last use failed; a
 *       closed or broken connection is replaced.
 *   <li>A connection lost while unused is found out by the next transaction's first statement;
 *       {@link JdbcExecutor} then runs that transaction once more on a fresh connection.
 *   <li>A refused login (a rotated secret) looks the credentials up afresh and tries once more.
 *   <li>A database that is not on loopback is reached over TLS with its certificate verified,
 *       unless configured otherwise ({@link DatabaseTls}, {@link TlsProperties}).
 *   <li>No message or cause it throws holds the URL's credentials ({@link JdbcUrls#redact}, {@link
 *       Scrubbed}).
 * </ul>
 *
 * <p>Thread-safe; the connection serves one caller at a time. The stores use it through a {@link
 * JdbcExecutor}.
 */
public final class JdbcConnectionProvider implements AutoCloseable {
  /** Work on the provider's connection, inside a transaction the provider commits. */
  @FunctionalInterface
  public interface ConnectionWork<T> {
    T run(Connection connection) throws SQLException;
  }

  private final String jdbcUrl;
  private final SqlDialect dialect;
  private final CredentialsSource credentials;
  private final ConnectionLimits limits;
  private final DatabaseTls tls;

  private final List<JdbcConnectionProvider> siblings = new ArrayList<>();

  private Connection connection;
  private long lastGoodNanos;
  private boolean suspect;

  private JdbcConnectionProvider(
      String jdbcUrl,
      SqlDialect dialect,
      CredentialsSource credentials,
      ConnectionLimits limits,
      DatabaseTls tls) {
    this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.credentials = Objects.requireNonNull(credentials, "credentials");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.tls = Objects.requireNonNull(tls, "tls");
  }

  /** A provider for the database of {@code settings}; nothing is opened until first use. */
  public static JdbcConnectionProvider create(
      DatabaseSettings settings, CredentialsSource credentials, ConnectionLimits limits) {
    return new JdbcConnectionProvider(
        settings.jdbcUrl(), settings.dialect(), credentials, limits, settings.tls());
  }

  public SqlDialect dialect() {
    return dialect;
  }

  /**
   * Another provider of the same database, login and limits, with a connection of its own (opened
   * on first use), for work that runs beside this provider's on another thread. Closing this
   * provider closes it too.
   */
  public synchronized JdbcConnectionProvider sibling() {
    JdbcConnectionProvider sibling =
        new JdbcConnectionProvider(jdbcUrl, dialect, credentials, limits, tls);
    siblings.add(sibling);
    return sibling;
  }

  /**
   * Runs {@code work} in a transaction and commits it. On failure it rolls back, marks the
   * connection for a check before its next use (or drops it, when the connection itself was lost)
   * and throws an {@link OutboxStoreException} whose message starts "could not {@code what}".
   */
  public synchronized <T> T inTransaction(String what, ConnectionWork<T> work) {
    Connection c = connection();
    try {
      T result = work.run(c);
      c.commit();
      lastGoodNanos = System.nanoTime();
      return result;
    } catch (SQLException e) {
      rollback(c, e);
      if (SqlErrors.isConnectionLost(e)) {
        discard();
      } else {
        suspect = true;
      }
      throw new OutboxStoreException(
          "could not "
              + what
              + " (SQLState "
              + e.getSQLState()
              + "): "
              + Scrubbed.text(e.getMessage(), jdbcUrl),
          Scrubbed.of(e, jdbcUrl));
    } catch (RuntimeException | Error e) {
      rollback(c, e);
      suspect = true;
      throw e;
    }
  }

  /**
   * The open connection, in manual-commit mode, opening or replacing it when needed. The caller
   * must commit or roll back before returning it to other work; prefer {@link #inTransaction}.
   */
  public synchronized Connection connection() {
    if (connection != null && (suspect || dueForCheck()) && !usable(connection)) {
      discard();
    }
    if (connection == null) {
      connection = open();
      lastGoodNanos = System.nanoTime();
    }
    suspect = false;
    return connection;
  }

  /**
   * Whether a connection is open: the next transaction reuses it (after a check, when one is due).
   */
  public synchronized boolean isOpen() {
    return connection != null;
  }

  /** Closes the connection, and those of its siblings; the next use opens a new one. */
  @Override
  public synchronized void close() {
    discard();
    siblings.forEach(JdbcConnectionProvider::close);
  }

  private boolean dueForCheck() {
    return System.nanoTime() - lastGoodNanos >= limits.validationInterval().toNanos();
  }

  private boolean usable(Connection c) {
    try {
      int seconds = (int) Math.max(1, limits.connectTimeout().toSeconds());
      boolean valid = !c.isClosed() && c.isValid(seconds);
      if (valid) {
        lastGoodNanos = System.nanoTime();
      }
      return valid;
    } catch (SQLException e) {
      return false; // a connection that cannot even answer this is not usable; it gets replaced
    }
  }

  private Connection open() {
    DatabaseCredentials login = credentials.get(false);
    try {
      return login(login);
    } catch (SQLException first) {
      if (!SqlErrors.isLoginRefused(first)) {
        throw new OutboxStoreException(
            "could not connect to "
                + JdbcUrls.redact(jdbcUrl)
                + " as "
                + login.username()
                + " (SQLState "
                + first.getSQLState()
                + ", connect timeout "
                + limits.connectTimeout().toMillis()
                + " ms): "
                + Scrubbed.text(first.getMessage(), jdbcUrl)
                + tlsAdvice(first),
            Scrubbed.of(first, jdbcUrl));
      }
      DatabaseCredentials fresh = credentials.get(true);
      if (!fresh.equals(login)) {
        try {
          return login(fresh);
        } catch (SQLException second) {
          if (!SqlErrors.isLoginRefused(second)) {
            throw new OutboxStoreException(
                "could not connect to "
                    + JdbcUrls.redact(jdbcUrl)
                    + " with refreshed credentials: "
                    + Scrubbed.text(second.getMessage(), jdbcUrl)
                    + tlsAdvice(second),
                Scrubbed.of(second, jdbcUrl));
          }
          second.addSuppressed(Scrubbed.of(first, jdbcUrl));
          throw loginRefused(fresh, second, true);
        }
      }
      throw loginRefused(login, first, false);
    }
  }

  private Connection login(DatabaseCredentials login) throws SQLException {
    Properties props = SessionSetup.driverProperties(dialect, jdbcUrl, limits);
    props.putAll(TlsProperties.forUrl(dialect, jdbcUrl, tls));
    props.setProperty("user", login.username());
    props.setProperty("password", login.password());
    Connection c = DriverManager.getConnection(jdbcUrl, props);
    try {
      SessionSetup.apply(c, dialect, limits);
      return c;
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  private OutboxStoreException loginRefused(
      DatabaseCredentials login, SQLException e, boolean refreshed) {
    return new OutboxStoreException(
        "the database at "
            + JdbcUrls.redact(jdbcUrl)
            + " refused the login of user '"
            + login.username()
            + "' (SQLState "
            + e.getSQLState()
            + ", error "
            + e.getErrorCode()
            + ")"
            + (refreshed ? ", also after the credentials were looked up again" : "")
            + ": "
            + Scrubbed.text(e.getMessage(), jdbcUrl)
            + ". Check "
            + DatabaseSettings.SECRET_ARN
            + " (its username and password) or "
            + DatabaseSettings.USER
            + "/"
            + DatabaseSettings.PASSWORD
            + ".",
        Scrubbed.of(e, jdbcUrl));
  }

  /**
   * What to do when the TLS handshake failed: nothing to add when it did not (the connection was
   * refused, timed out, or the login failed).
   */
  private String tlsAdvice(SQLException e) {
    if (!tlsRefused(e)) {
      return "";
    }
    return ". The database's TLS certificate was not accepted: with "
        + DatabaseTls.TLS
        + "="
        + tls.mode().text()
        + " it must chain to a CA in "
        + tls.caFile()
            .map(f -> DatabaseTls.CA_FILE + " (" + f + ")")
            .orElse("the JVM's trust store")
        + " and name the host of "
        + DatabaseSettings.JDBC_URL
        + ". For RDS and Aurora set "
        + DatabaseTls.CA_FILE
        + " to the RDS CA bundle (docs/security.md); connect by the endpoint's DNS name, not an IP"
        + " address or an alias the certificate does not name";
  }

  private static boolean tlsRefused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String name = t.getClass().getName();
      String message = String.valueOf(t.getMessage());
      if (name.startsWith("javax.net.ssl.")
          || name.startsWith("java.security.cert.")
          || message.contains("could not be verified")
          || message.contains("PKIX path")) {
        return true;
      }
    }
    return false;
  }

  private static void rollback(Connection c, Throwable failure) {
    try {
      c.rollback();
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  private void discard() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        // Closing a broken connection often fails; it is dropped either way and a new one opened.
      }
    }
  }
}
