package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class PollerPostgresRetentionTest extends PollerRetentionContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
