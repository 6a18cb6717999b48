package dev.lambdaoutbox.store.config;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How long a function's database connection may wait on anything, so that an outage fails an
 * invocation quickly instead of hanging it until the Lambda timeout, and so that no transaction can
 * outlive the lease of the rows it claimed. Read from the {@code OUTBOX_DB_*_MS} variables {@link
 * DatabaseVariables} declares (their defaults and bounds are there); what each becomes:
 *
 * <ul>
 *   <li>connect timeout: the driver's {@code connectTimeout} (and PostgreSQL's {@code
 *       loginTimeout});
 *   <li>socket timeout: the driver's {@code socketTimeout}; must be longer than the statement
 *       timeout, so the server, not the socket, ends slow statements;
 *   <li>statement timeout: PostgreSQL {@code statement_timeout} and {@code lock_timeout}; MySQL
 *       {@code max_execution_time} (SELECTs only) or MariaDB {@code max_statement_time}, and {@code
 *       innodb_lock_wait_timeout} (whole seconds, at least 1);
 *   <li>idle-in-transaction timeout: PostgreSQL {@code idle_in_transaction_session_timeout};
 *       MariaDB {@code idle_transaction_timeout} (whole seconds); MySQL has no such setting;
 *   <li>validation interval: a connection unused for longer is checked with {@code
 *       Connection.isValid} before it is used again, and at once after any failure.
 * </ul>
 *
 * The statement and idle timeouts stay well below the poller's lease, so a claim's transaction ends
 * before its rows may be claimed by someone else.
 */
public record ConnectionLimits(
    Duration connectTimeout,
    Duration socketTimeout,
    Duration statementTimeout,
    Duration idleInTransactionTimeout,
    Duration validationInterval) {

  private static final ConnectionLimits DEFAULTS = fromEnvironment(new EnvironmentReader(Map.of()));

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

  /** What an unset environment gives: the declared defaults. */
  public static ConnectionLimits defaults() {
    return DEFAULTS;
  }

  public static ConnectionLimits fromEnvironment(EnvironmentReader env) {
    Duration connect = env.duration(DatabaseVariables.CONNECT_TIMEOUT);
    Duration socket = env.duration(DatabaseVariables.SOCKET_TIMEOUT);
    Duration statement = env.duration(DatabaseVariables.STATEMENT_TIMEOUT);
    Duration idle = env.duration(DatabaseVariables.IDLE_IN_TRANSACTION_TIMEOUT);
    Duration validation = env.duration(DatabaseVariables.VALIDATION_INTERVAL);
    if (socket.compareTo(statement) <= 0) {
      throw new ConfigurationException(
          DatabaseVariables.SOCKET_TIMEOUT.name(),
          socket.toMillis()
              + "ms is not longer than "
              + DatabaseVariables.STATEMENT_TIMEOUT.name()
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
