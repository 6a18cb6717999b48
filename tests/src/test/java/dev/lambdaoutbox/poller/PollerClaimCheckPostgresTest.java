package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.OutboxStore;

/** {@link PollerClaimCheckContract} on the test bed's PostgreSQL over JDBC. */
class PollerClaimCheckPostgresTest extends PollerClaimCheckContract {
  @Override
  PollerTestBed bed() {
    return new PollerTestBed("cc_pg");
  }

  @Override
  OutboxStore store(PollerConfig config) {
    return bed.store(config);
  }
}
