package dev.lambdaoutbox.store.jdbc;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.jdbc.internal.JdbcBinder;
import dev.lambdaoutbox.store.jdbc.internal.JdbcSession;
import dev.lambdaoutbox.store.jdbc.internal.SqlErrors;
import dev.lambdaoutbox.store.model.OutboxStoreException;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlWork;
import dev.lambdaoutbox.store.sql.StatementException;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs the stores' work over JDBC, on the one connection of a {@link JdbcConnectionProvider}: each
 * piece of work is one transaction the provider commits, or rolls back (and checks or replaces the
 * connection) on failure. A deadlock victim is run again ({@link SqlExecutor#DEADLOCK_ATTEMPTS}),
 * and work that found the reused connection dead before it ran anything is run once more on a fresh
 * one.
 *
 * <pre>{@code
 * SqlExecutor executor = JdbcExecutor.of(JdbcConnectionProvider.create(settings, credentials, limits));
 * OutboxStore store = OutboxStore.builder(executor).tables(settings.tables()).build();
 * }</pre>
 */
public final class JdbcExecutor implements SqlExecutor {
  private final JdbcConnectionProvider connections;
  private final JdbcBinder binder;
  private final long maxResultBytes;

  private JdbcExecutor(JdbcConnectionProvider connections, long maxResultBytes) {
    this.connections = Objects.requireNonNull(connections, "connections");
    this.binder = new JdbcBinder(connections.dialect());
    if (maxResultBytes < 1) {
      throw new IllegalArgumentException("maxResultBytes must be positive, not " + maxResultBytes);
    }
    this.maxResultBytes = maxResultBytes;
  }

  /** An executor whose statements' results are not bounded. */
  public static JdbcExecutor of(JdbcConnectionProvider connections) {
    return new JdbcExecutor(connections, Long.MAX_VALUE);
  }

  /**
   * An executor whose sessions report {@code maxResultBytes} ({@link
   * dev.lambdaoutbox.store.sql.SqlSession#maxResultBytes()}): claims and dead-letter reads size
   * themselves to it, so a function's memory bounds what they hold.
   */
  public static JdbcExecutor of(JdbcConnectionProvider connections, long maxResultBytes) {
    return new JdbcExecutor(connections, maxResultBytes);
  }

  /**
   * A short random pause before a deadlock victim runs again, longer after each, so that the
   * transactions it met do not meet it again in the same order at once.
   */
  private static void pauseAfterDeadlock(int deadlocks) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, 10L * deadlocks + 1));
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public SqlDialect dialect() {
    return connections.dialect();
  }

  /**
   * An executor on a connection of its own ({@link JdbcConnectionProvider#sibling()}): opened on
   * first use, closed with this executor's provider.
   */
  @Override
  public SqlExecutor secondConnection() {
    return new JdbcExecutor(connections.sibling(), maxResultBytes);
  }

  /** The provider this executor runs on. */
  public JdbcConnectionProvider connections() {
    return connections;
  }

  /**
   * {@inheritDoc}
   *
   * <p>When the work's first statement finds the reused connection lost (it died while unused: the
   * server restarted or ended the session, or the sandbox was frozen), nothing has run, so the work
   * runs once more on a fresh connection. A connection lost later in the work fails the call: what
   * ran may or may not have been applied, and the caller's next transaction starts afresh.
   */
  @Override
  public <T> T inTransaction(String what, SqlWork<T> work) {
    Objects.requireNonNull(work, "work");
    boolean reconnected = false;
    int deadlocks = 0;
    while (true) {
      boolean reusing = connections.isOpen();
      JdbcSession[] session = new JdbcSession[1];
      try {
        return connections.inTransaction(
            what,
            c -> {
              session[0] = new JdbcSession(c, binder, maxResultBytes);
              try {
                return work.run(session[0]);
              } catch (StatementException e) {
                // The driver's own exception, so that the provider classifies and reports it.
                if (e.getCause() instanceof SQLException driver) {
                  throw driver;
                }
                throw e;
              }
            });
      } catch (OutboxStoreException e) {
        SQLException cause = e.getCause() instanceof SQLException s ? s : null;
        boolean staleConnection =
            reusing
                && cause != null
                && SqlErrors.isConnectionLost(cause)
                && session[0] != null
                && !session[0].ranAnything();
        if (staleConnection && !reconnected) {
          reconnected = true;
          continue;
        }
        boolean deadlock = cause != null && SqlErrors.isDeadlock(cause);
        if (!deadlock || ++deadlocks >= DEADLOCK_ATTEMPTS) {
          throw e;
        }
        pauseAfterDeadlock(deadlocks);
      }
    }
  }
}
