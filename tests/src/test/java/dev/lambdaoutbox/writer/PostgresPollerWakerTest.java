package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerWakerContract} on PostgreSQL. */
class PostgresPollerWakerTest extends PollerWakerContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
