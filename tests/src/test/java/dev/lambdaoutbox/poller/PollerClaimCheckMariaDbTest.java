package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.TestEndpoints;

/** {@link PollerClaimCheckContract} on the test bed's MariaDB over JDBC. */
class PollerClaimCheckMariaDbTest extends PollerClaimCheckContract {
  @Override
  PollerTestBed bed() {
    return new PollerTestBed("cc_maria", TestEndpoints.mysql());
  }

  @Override
  OutboxStore store(PollerConfig config) {
    return bed.store(config);
  }
}
