package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerEventBridgeContract} on the test bed's MariaDB. */
class PollerEventBridgeMariaDbTest extends PollerEventBridgeContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }

  @Override
  String label() {
    return "eb_maria";
  }
}
