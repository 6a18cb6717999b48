package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class DeadLetterStorePostgresTest extends DeadLetterStoreContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
