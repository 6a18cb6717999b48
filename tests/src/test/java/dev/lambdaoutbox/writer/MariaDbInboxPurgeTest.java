package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class MariaDbInboxPurgeTest extends InboxPurgeContractTest {

  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
