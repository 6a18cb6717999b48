package dev.lambdaoutbox.packaging;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerWakeUpLingerContract} on MariaDB. */
class MariaDbPollerWakeUpLingerTest extends PollerWakeUpLingerContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
