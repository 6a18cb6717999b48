package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerEventBridgeContract} on the test bed's PostgreSQL. */
class PollerEventBridgePostgresTest extends PollerEventBridgeContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  String label() {
    return "eb_pg";
  }
}
