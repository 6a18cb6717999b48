package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/**
 * One way the functions reach the outbox tables, for contracts that run the same behaviour over
 * each: JDBC to PostgreSQL and to MariaDB, the Data API (the test bed's emulator, serving
 * PostgreSQL), and JDBC to MariaDB with the Data API's result budget (the statements Aurora MySQL
 * would run over the Data API).
 */
public enum Backend {
  POSTGRES_JDBC(TestEndpoints::postgres),
  MARIADB_JDBC(TestEndpoints::mysql),
  DATA_API(TestEndpoints::postgres),
  MARIADB_DATA_API_BUDGET(TestEndpoints::mysql);

  private final Supplier<TestDatabase> database;

  Backend(Supplier<TestDatabase> database) {
    this.database = database;
  }

  /** The database holding the tables; the application writes to it over JDBC. */
  public TestDatabase database() {
    return database.get();
  }

  /**
   * The functions' executor on {@code tables}; what it opens goes into {@code resources}, for the
   * caller to close.
   */
  public SqlExecutor executor(OutboxTables tables, List<AutoCloseable> resources) {
    return switch (this) {
      case POSTGRES_JDBC, MARIADB_JDBC -> jdbc(tables, resources);
      case DATA_API -> {
        DataApiEndpoint dataApi = TestEndpoints.dataApi();
        RdsDataClient client = dataApi.client();
        resources.add(client);
        yield dataApi.executor(client).build();
      }
      case MARIADB_DATA_API_BUDGET -> BudgetedExecutor.dataApi(jdbc(tables, resources));
    };
  }

  /**
   * What a packaged function needs besides its own settings to reach the tables this way; empty for
   * the budgeted MariaDB, which no packaged function can reach (there is no MySQL Data API
   * emulator).
   */
  public Map<String, String> functionEnvironment(OutboxTables tables) {
    TestDatabase db = database();
    Map<String, String> env =
        switch (this) {
          case POSTGRES_JDBC, MARIADB_JDBC ->
              Map.of(
                  "OUTBOX_JDBC_URL", db.jdbcUrl(),
                  "OUTBOX_DB_USER", db.user(),
                  "OUTBOX_DB_PASSWORD", db.password());
          case DATA_API -> TestEndpoints.dataApi().functionEnvironment();
          case MARIADB_DATA_API_BUDGET -> Map.of();
        };
    if (env.isEmpty()) {
      return env;
    }
    Map<String, String> withTables = new LinkedHashMap<>(TestEndpoints.aws().environment());
    withTables.putAll(env);
    withTables.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    return withTables;
  }

  private SqlExecutor jdbc(OutboxTables tables, List<AutoCloseable> resources) {
    JdbcConnectionProvider connections = Stores.connections(database(), tables);
    resources.add(connections);
    return JdbcExecutor.of(connections);
  }

  /** Closes {@code resources}, last opened first. */
  public static void close(List<AutoCloseable> resources) {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        throw new IllegalStateException("could not close " + resources.get(i), e);
      }
    }
    resources.clear();
  }
}
