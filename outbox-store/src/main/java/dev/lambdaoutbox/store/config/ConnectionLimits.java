package dev.lambdaoutbox.store.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the poller's database connection may wait on anything, so that an outage fails an
 * invocation quickly instead of hanging it until the Lambda timeout, and so that no transaction can
 * outlive the lease of the rows it claimed.
 *
 * <ul>
 *   <li>{@code OUTBOX_DB_CONNECT_TIMEOUT_MS} (default 5,000): opening the TCP connection and
 *       logging in; the driver's {@code connectTimeout} (and PostgreSQL's {@code loginTimeout}).
 *   <li>{@code OUTBOX_DB_SOCKET_TIMEOUT_MS} (default 30,000): the longest wait for any reply from
 *       the server, the driver's {@code socketTimeout}; a network black hole ends here. Must be
 *       longer than the statement timeout, so the server, not the socket, ends slow statements.
 *   <li>{@code OUTBOX_DB_STATEMENT_TIMEOUT_MS} (default 10,000): the longest one statement may run,
 *       and the longest it may wait for a row lock. PostgreSQL {@code statement_timeout} and {@code
 *       lock_timeout}; MySQL {@code max_execution_time} (SELECTs only) or MariaDB {@code
 *       max_statement_time}, and {@code innodb_lock_wait_timeout} (whole seconds, at least 1).
 *   <li>{@code OUTBOX_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS} (default 10,000): how long a transaction
 *       may sit open with no statement running before the server ends the session and rolls it
 *       back. PostgreSQL {@code idle_in_transaction_session_timeout}; MariaDB {@code
 *       idle_transaction_timeout} (whole seconds); MySQL has no such setting.
 *   <li>{@code OUTBOX_DB_VALIDATION_INTERVAL_MS} (default 30,000): a connection unused for longer
 *       than this is checked with {@code Connection.isValid} before it is used again (a frozen
 *       Lambda container may find its connection long gone); after any failure it is checked at
 *       once.
 * </ul>
 *
 * <p>Keep the statement and idle timeouts well below the poller's lease: a claim transaction then
 * always ends, one way or the other, before its rows may be claimed by someone else.
 */
public record ConnectionLimits(
    Duration connectTimeout,
    Duration socketTimeout,
    Duration statementTimeout,
    Duration idleInTransactionTimeout,
    Duration validationInterval) {

  public static final String CONNECT_TIMEOUT = "OUTBOX_DB_CONNECT_TIMEOUT_MS";
  public static final String SOCKET_TIMEOUT = "OUTBOX_DB_SOCKET_TIMEOUT_MS";
  public static final String STATEMENT_TIMEOUT = "OUTBOX_DB_STATEMENT_TIMEOUT_MS";
  public static final String IDLE_IN_TRANSACTION_TIMEOUT =
      "OUTBOX_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS";
  public static final String VALIDATION_INTERVAL = "OUTBOX_DB_VALIDATION_INTERVAL_MS";

  private static final ConnectionLimits DEFAULTS =
      new ConnectionLimits(
          Duration.ofSeconds(5),
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          Duration.ofSeconds(10),
          Duration.ofSeconds(30));

  public ConnectionLimits {
    requirePositive("connectTimeout", connectTimeout);
    requirePositive("socketTimeout", socketTimeout);
    requirePositive("statementTimeout", statementTimeout);
    requirePositive("idleInTransactionTimeout", idleInTransactionTimeout);
    Objects.requireNonNull(validationInterval, "validationInterval");
    if (validationInterval.isNegative()) {
      throw new IllegalArgumentException("validationInterval: must not be negative");
    }
    if (socketTimeout.compareTo(statementTimeout) <= 0) {
      throw new IllegalArgumentException(
          "socketTimeout ("
              + socketTimeout.toMillis()
              + " ms) must be longer than statementTimeout ("
              + statementTimeout.toMillis()
              + " ms), so that the server ends a slow statement before the socket gives up");
    }
  }

  /** Connect 5 s, socket 30 s, statement 10 s, idle in transaction 10 s, validation 30 s. */
  public static ConnectionLimits defaults() {
    return DEFAULTS;
  }

  public static ConnectionLimits fromEnvironment(EnvironmentReader env) {
    Duration connect =
        env.millis(
            CONNECT_TIMEOUT,
            DEFAULTS.connectTimeout,
            Duration.ofMillis(100),
            Duration.ofMinutes(5));
    Duration socket =
        env.millis(
            SOCKET_TIMEOUT, DEFAULTS.socketTimeout, Duration.ofSeconds(1), Duration.ofMinutes(15));
    Duration statement =
        env.millis(
            STATEMENT_TIMEOUT,
            DEFAULTS.statementTimeout,
            Duration.ofMillis(100),
            Duration.ofMinutes(15));
    Duration idle =
        env.millis(
            IDLE_IN_TRANSACTION_TIMEOUT,
            DEFAULTS.idleInTransactionTimeout,
            Duration.ofSeconds(1),
            Duration.ofMinutes(15));
    Duration validation =
        env.millis(
            VALIDATION_INTERVAL, DEFAULTS.validationInterval, Duration.ZERO, Duration.ofHours(1));
    if (socket.compareTo(statement) <= 0) {
      throw new ConfigurationException(
          SOCKET_TIMEOUT,
          socket.toMillis()
              + "ms is not longer than "
              + STATEMENT_TIMEOUT
              + " ("
              + statement.toMillis()
              + "ms); make it longer, so that the server ends a slow statement before the socket"
              + " gives up");
    }
    return new ConnectionLimits(connect, socket, statement, idle, validation);
  }

  private static void requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + ": must be positive, was " + value);
    }
  }
}
