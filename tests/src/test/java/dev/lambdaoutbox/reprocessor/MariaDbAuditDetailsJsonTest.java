package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;

class MariaDbAuditDetailsJsonTest extends AuditDetailsJsonContract {
  @Override
  TestDatabase database() {
    return TestEndpoints.mysql();
  }
}
