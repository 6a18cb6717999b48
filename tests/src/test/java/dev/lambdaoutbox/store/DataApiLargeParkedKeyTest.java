package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * A large aggregate parked and released, on the RDS Data API against PostgreSQL, on the test bed's
 * {@code data-api-local}.
 */
class DataApiLargeParkedKeyTest extends LargeParkedKeyContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    return dataApiExecutor();
  }
}
