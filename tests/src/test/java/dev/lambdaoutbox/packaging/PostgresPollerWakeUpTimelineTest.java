package dev.lambdaoutbox.packaging;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerWakeUpTimelineContract} on PostgreSQL. */
class PostgresPollerWakeUpTimelineTest extends PollerWakeUpTimelineContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
