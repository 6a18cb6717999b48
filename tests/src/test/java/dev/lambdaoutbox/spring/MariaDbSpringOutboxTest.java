package dev.lambdaoutbox.spring;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class MariaDbSpringOutboxTest extends SpringOutboxContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
