package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerWakerContract} on MariaDB. */
class MariaDbPollerWakerTest extends PollerWakerContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
