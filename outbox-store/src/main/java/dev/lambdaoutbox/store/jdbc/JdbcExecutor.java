package dev.lambdaoutbox.store.jdbc;

import dev.lambdaoutbox.store.OutboxStoreException;
import dev.lambdaoutbox.store.jdbc.internal.JdbcBinder;
import dev.lambdaoutbox.store.jdbc.internal.JdbcSession;
import dev.lambdaoutbox.store.jdbc.internal.SqlErrors;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.sql.SqlWork;
import dev.lambdaoutbox.store.sql.StatementException;
import dev.lambdaoutbox.writer.SqlDialect;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Runs the stores' work over JDBC, on the one connection of a {@link JdbcConnectionProvider}: each
 * piece of work is one transaction the provider commits, or rolls back (and checks or replaces the
 * connection) on failure. A deadlock victim is run again ({@link SqlExecutor#DEADLOCK_ATTEMPTS}).
 *
 * <pre>{@code
 * SqlExecutor executor = JdbcExecutor.of(JdbcConnectionProvider.create(settings, credentials, limits));
 * OutboxStore store = OutboxStore.builder(executor).tables(settings.tables()).build();
 * }</pre>
 */
public final class JdbcExecutor implements SqlExecutor {
  private final JdbcConnectionProvider connections;
  private final JdbcBinder binder;

  private JdbcExecutor(JdbcConnectionProvider connections) {
    this.connections = Objects.requireNonNull(connections, "connections");
    this.binder = new JdbcBinder(connections.dialect());
  }

  public static JdbcExecutor of(JdbcConnectionProvider connections) {
    return new JdbcExecutor(connections);
  }

  @Override
  public SqlDialect dialect() {
    return connections.dialect();
  }

  /** The provider this executor runs on. */
  public JdbcConnectionProvider connections() {
    return connections;
  }

  @Override
  public <T> T inTransaction(String what, SqlWork<T> work) {
    Objects.requireNonNull(work, "work");
    for (int attempt = 1; ; attempt++) {
      try {
        return connections.inTransaction(
            what,
            c -> {
              try {
                return work.run(new JdbcSession(c, binder));
              } catch (StatementException e) {
                // The driver's own exception, so that the provider classifies and reports it.
                if (e.getCause() instanceof SQLException driver) {
                  throw driver;
                }
                throw e;
              }
            });
      } catch (OutboxStoreException e) {
        boolean deadlock = e.getCause() instanceof SQLException s && SqlErrors.isDeadlock(s);
        if (!deadlock || attempt >= DEADLOCK_ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
