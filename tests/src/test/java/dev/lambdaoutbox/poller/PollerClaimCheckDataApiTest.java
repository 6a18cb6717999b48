package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.TestEndpoints;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/**
 * {@link PollerClaimCheckContract} over the Data API emulator (on the test bed's PostgreSQL): each
 * piece of a whole payload must fit the Data API's 1 MiB response.
 */
class PollerClaimCheckDataApiTest extends PollerClaimCheckContract {
  private RdsDataClient client;

  @Override
  PollerTestBed bed() {
    return new PollerTestBed("cc_dataapi");
  }

  @Override
  OutboxStore store(PollerConfig config) {
    if (client == null) {
      client = TestEndpoints.dataApi().client();
    }
    return OutboxStore.builder(TestEndpoints.dataApi().executor(client).build())
        .tables(bed.tables)
        .build();
  }

  @Override
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    super.stop();
  }
}
