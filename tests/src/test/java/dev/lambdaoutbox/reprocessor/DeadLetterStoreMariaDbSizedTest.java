package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.BudgetedExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * The dead-letter store contract against MariaDB with the Data API's result budget: the reads
 * Aurora MySQL would run over the Data API, run over JDBC, since no emulator serves MySQL.
 */
class DeadLetterStoreMariaDbSizedTest extends DeadLetterStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return BudgetedExecutor.dataApi(
        JdbcExecutor.of(closeAfterEach(Stores.connections(database(), tables()))));
  }
}
