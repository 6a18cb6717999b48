package dev.lambdaoutbox.store;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class PostgresRetentionPurgeTest extends RetentionPurgeContractTest {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
