package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * The store contract against MariaDB with the Data API's result budget: the statements Aurora MySQL
 * would run over the Data API (claims and reads sized to what one response may hold), run over
 * JDBC, since no emulator serves MySQL.
 */
class MariaDbSizedOutboxStoreTest extends OutboxStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return budgetedJdbcExecutor();
  }
}
