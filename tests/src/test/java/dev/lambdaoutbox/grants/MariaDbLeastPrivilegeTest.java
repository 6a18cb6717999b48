package dev.lambdaoutbox.grants;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class MariaDbLeastPrivilegeTest extends PostgresLeastPrivilegeTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
