package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** A large aggregate parked and released, on MariaDB over JDBC. */
class MariaDbLargeParkedKeyTest extends LargeParkedKeyContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }
}
