package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.docs.DocPages;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.rdsdata.model.BatchExecuteStatementRequest;
import software.amazon.awssdk.services.rdsdata.model.BatchExecuteStatementResponse;
import software.amazon.awssdk.services.rdsdata.model.BeginTransactionRequest;
import software.amazon.awssdk.services.rdsdata.model.BeginTransactionResponse;
import software.amazon.awssdk.services.rdsdata.model.CommitTransactionRequest;
import software.amazon.awssdk.services.rdsdata.model.CommitTransactionResponse;
import software.amazon.awssdk.services.rdsdata.model.ExecuteStatementRequest;
import software.amazon.awssdk.services.rdsdata.model.ExecuteStatementResponse;
import software.amazon.awssdk.services.rdsdata.model.RollbackTransactionRequest;
import software.amazon.awssdk.services.rdsdata.model.RollbackTransactionResponse;

/**
 * What a scheduled run with nothing to publish asks of the database over the Data API (the test
 * bed's emulator): the requests that keep an Aurora Serverless v2 cluster from pausing, which
 * docs/deploying.md counts for a user choosing the schedule. The run is the poller's own, warm, on
 * empty tables; the page's figure must be the one measured here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdleRunDataApiCallsTest {
  private PollerTestBed bed;
  private RdsDataClient client;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("idlecalls");
    client = TestEndpoints.dataApi().client();
  }

  @AfterAll
  void stop() throws Exception {
    client.close();
    bed.close();
  }

  @Test
  void anIdleRun_makesTheDataApiRequestsThePageCounts() throws IOException {
    Recording recording = new Recording(client);
    DataApiEndpoint dataApi = TestEndpoints.dataApi();
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", "https://sqs.us-east-1.amazonaws.com/123456789012/idle");
    // As the poller's wiring builds it, on the defaults: the idempotency keys' window makes each
    // run's retention pass look for keys to delete.
    assertThat(config.storeTuning().idempotencyWindow()).isNotNull();
    OutboxStore store =
        OutboxStore.builder(dataApi.executor(recording).build())
            .tables(bed.tables)
            .retention(config.storeTuning().retention())
            .ordering(config.ordering())
            .idempotencyWindow(config.storeTuning().idempotencyWindow())
            .completionsOnSecondConnection()
            .build();
    PollerHandler handler = bed.handler(config, store, new PollerPipelineContract.Counting());
    bed.invoke(handler);
    recording.calls.clear();

    PollSummary summary = bed.invoke(handler);

    assertThat(summary.claimed()).isZero();
    List<String> calls = List.copyOf(recording.calls);
    System.out.println("an idle run's Data API requests: " + calls);
    // The three transactions the page names, in the order the run makes them.
    assertThat(calls).hasSize(9);
    for (int tx = 0; tx < 3; tx++) {
      assertThat(calls.get(3 * tx)).isEqualTo("BeginTransaction");
      assertThat(calls.get(3 * tx + 2)).isEqualTo("CommitTransaction");
    }
    assertThat(calls.get(1)).as("the claim").contains("SKIP LOCKED");
    assertThat(calls.get(4)).as("the retention pass").contains("DELETE FROM", "idempotency_keys");
    assertThat(calls.get(7)).as("the backlog").contains("MIN(not_before)");
    Matcher stated =
        Pattern.compile("an idle run \\([^)]*\\)\\s+makes\\s+(\\d+)\\s+Data\\s+API\\s+requests")
            .matcher(Files.readString(DocPages.ROOT.resolve("docs/deploying.md")));
    assertThat(stated.find()).as("docs/deploying.md counts an idle run's requests").isTrue();
    assertThat(Integer.parseInt(stated.group(1))).isEqualTo(calls.size());
  }

  /** The real client, recording each request: its kind, and a statement's first words. */
  private static final class Recording implements RdsDataClient {
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    private final RdsDataClient real;

    Recording(RdsDataClient real) {
      this.real = real;
    }

    @Override
    public BeginTransactionResponse beginTransaction(BeginTransactionRequest r) {
      calls.add("BeginTransaction");
      return real.beginTransaction(r);
    }

    @Override
    public ExecuteStatementResponse executeStatement(ExecuteStatementRequest r) {
      String sql = r.sql().strip().replaceAll("\\s+", " ");
      calls.add("ExecuteStatement " + sql);
      return real.executeStatement(r);
    }

    @Override
    public BatchExecuteStatementResponse batchExecuteStatement(BatchExecuteStatementRequest r) {
      calls.add("BatchExecuteStatement");
      return real.batchExecuteStatement(r);
    }

    @Override
    public CommitTransactionResponse commitTransaction(CommitTransactionRequest r) {
      calls.add("CommitTransaction");
      return real.commitTransaction(r);
    }

    @Override
    public RollbackTransactionResponse rollbackTransaction(RollbackTransactionRequest r) {
      calls.add("RollbackTransaction");
      return real.rollbackTransaction(r);
    }

    @Override
    public String serviceName() {
      return real.serviceName();
    }

    @Override
    public void close() {}
  }
}
