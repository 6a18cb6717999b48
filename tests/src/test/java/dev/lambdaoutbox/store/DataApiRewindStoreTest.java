package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** Rewinds over the RDS Data API against PostgreSQL, on the test bed's strict data-api-local. */
class DataApiRewindStoreTest extends RewindStoreContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    return dataApiExecutor();
  }
}
