package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * Unreadable rows against MariaDB with the Data API's result budget: the sized claim Aurora MySQL
 * would run over the Data API, carrying ids as stored text.
 */
class MariaDbSizedUnreadableRowsTest extends UnreadableRowsContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return budgetedJdbcExecutor();
  }
}
