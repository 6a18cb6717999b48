package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * Rewinds against MariaDB with the Data API's result budget and row limit, the statements Aurora
 * MySQL would run over the Data API.
 */
class MariaDbSizedRewindStoreTest extends RewindStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return budgetedJdbcExecutor();
  }
}
