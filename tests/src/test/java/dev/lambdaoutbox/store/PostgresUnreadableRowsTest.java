package dev.lambdaoutbox.store;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class PostgresUnreadableRowsTest extends UnreadableRowsContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
