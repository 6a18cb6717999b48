package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class PostgresIdempotencyWindowTest extends IdempotencyWindowContractTest {

  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }
}
