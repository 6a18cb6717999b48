package dev.lambdaoutbox.packaging;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerWakeUpLingerContract} on PostgreSQL. */
class PostgresPollerWakeUpLingerTest extends PollerWakeUpLingerContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
