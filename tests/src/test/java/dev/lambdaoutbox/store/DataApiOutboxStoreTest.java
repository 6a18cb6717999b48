package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * The store contract over the RDS Data API against PostgreSQL: the test bed's {@code
 * data-api-local}, which serves the same database the rows are written to and inspected in over
 * JDBC.
 */
class DataApiOutboxStoreTest extends OutboxStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    return dataApiExecutor();
  }
}
