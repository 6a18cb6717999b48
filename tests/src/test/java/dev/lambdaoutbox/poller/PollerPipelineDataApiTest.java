package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/**
 * The pipelined poller over the RDS Data API (the test bed's emulator, serving the PostgreSQL the
 * rows are written to): claims and recordings are HTTP calls, made at once from two threads on one
 * client. Two invocations at once publish every row exactly once, and the counts say so.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerPipelineDataApiTest {
  private static final int ROWS = 2_000;

  private PollerTestBed bed;
  private RdsDataClient client;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("pipedataapi");
    client = TestEndpoints.dataApi().client();
  }

  @AfterAll
  void stop() throws Exception {
    client.close();
    bed.close();
  }

  @Test
  void twoPipelinedInvocationsOverTheDataApi_publishEachRowExactlyOnce() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().tables(bed.tables).clock(bed.clock).build();
    Set<UUID> written = new HashSet<>();
    for (int from = 0; from < ROWS; from += 500) {
      List<OutboxEvent> events = new ArrayList<>();
      for (int i = from; i < from + 500; i++) {
        events.add(event("order.created", "o-" + i).build());
      }
      written.addAll(bed.append(writer, events));
    }
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION",
            "https://sqs.us-east-1.amazonaws.com/123456789012/counted",
            "OUTBOX_BATCH_SIZE",
            "100");
    assertThat(config.publishing().pipeline()).isTrue();
    PollerPipelineContract.Counting counting = new PollerPipelineContract.Counting();
    DataApiEndpoint dataApi = TestEndpoints.dataApi();
    List<PollerHandler> handlers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      OutboxStore store =
          OutboxStore.builder(dataApi.executor(client).build())
              .tables(bed.tables)
              .completionsOnSecondConnection()
              .build();
      handlers.add(bed.handler(config, store, counting));
    }

    List<PollSummary> summaries = bed.invokeAtOnce(handlers);

    assertThat(counting.published.keySet()).isEqualTo(written);
    assertThat(counting.published.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(summaries.stream().mapToInt(PollSummary::published).sum()).isEqualTo(ROWS);
    assertThat(summaries).allSatisfy(s -> assertThat(s.stoppedBecause()).isEqualTo("drained"));
    assertThat(bed.count(bed.tables.messages())).isZero();
  }
}
