package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** A large aggregate parked and released, on PostgreSQL over JDBC. */
class PostgresLargeParkedKeyTest extends LargeParkedKeyContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    return jdbcExecutor();
  }
}
