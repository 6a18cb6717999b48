package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * The ordered store against MariaDB with the Data API's result budget: the ordered claim Aurora
 * MySQL would run over the Data API, sized to what one response may hold, run over JDBC, since no
 * emulator serves MySQL.
 */
class MariaDbSizedOrderedStoreTest extends OrderedStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return budgetedJdbcExecutor();
  }
}
