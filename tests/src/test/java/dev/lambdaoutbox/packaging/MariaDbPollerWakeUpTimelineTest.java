package dev.lambdaoutbox.packaging;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerWakeUpTimelineContract} on MariaDB. */
class MariaDbPollerWakeUpTimelineTest extends PollerWakeUpTimelineContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
