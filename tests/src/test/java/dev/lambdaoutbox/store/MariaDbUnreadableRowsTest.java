package dev.lambdaoutbox.store;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class MariaDbUnreadableRowsTest extends UnreadableRowsContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
