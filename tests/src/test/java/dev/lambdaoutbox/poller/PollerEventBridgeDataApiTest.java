package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/** {@link PollerEventBridgeContract} over the Data API emulator (on the test bed's PostgreSQL). */
class PollerEventBridgeDataApiTest extends PollerEventBridgeContract {
  private RdsDataClient client;

  @Override
  TestDatabase database() {
    return TestEndpoints.postgres();
  }

  @Override
  String label() {
    return "eb_dataapi";
  }

  /** A Data API claim brings what fits in one 1 MiB result. */
  @Override
  boolean claimsAllAtOnce() {
    return false;
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
