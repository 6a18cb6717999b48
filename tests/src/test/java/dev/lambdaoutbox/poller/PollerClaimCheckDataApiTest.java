package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.OutboxStore;

/**
 * {@link PollerClaimCheckContract} over the Data API emulator (on the test bed's PostgreSQL): each
 * piece of a whole payload must fit the Data API's 64 KB a row, whatever its characters.
 */
class PollerClaimCheckDataApiTest extends PollerClaimCheckContract {
  @Override
  PollerTestBed bed() {
    return new PollerTestBed("cc_dataapi");
  }

  @Override
  OutboxStore store(PollerConfig config) {
    return bed.dataApiStore();
  }
}
