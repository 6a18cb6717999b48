package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/**
 * The dead-letter store contract over the RDS Data API against PostgreSQL (the test bed's {@code
 * data-api-local} over the database the rows are seeded in).
 */
class DeadLetterStoreDataApiTest extends DeadLetterStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  SqlExecutor newExecutor() {
    DataApiEndpoint dataApi = TestEndpoints.dataApi();
    return dataApi.executor(closeAfterEach(dataApi.client())).build();
  }
}
