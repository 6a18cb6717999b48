package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.LambdaWriterFunction;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A writer that is itself a Lambda function ({@link LambdaWriterFunction}: each request appends an
 * event, commits, wakes the poller and returns) runs in the runtime emulator, which freezes it
 * after every request; the packaged poller runs in another, frozen between its runs too. Requests
 * come further apart than the one second allowed, so a wake-up left to the waker's thread when the
 * handler returned would wait, frozen, for the next request: every event must be published within a
 * second of its commit all the same.
 */
class LambdaHostedWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration GAP = Duration.ofMillis(1_200);
  private static final int REQUESTS = 6;

  @Test
  void aLambdaHostedWritersEvents_arePublishedWithinASecond_thoughItIsFrozenAfterEachRequest()
      throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = db.createTables("lambdawriter");
    AwsEndpoint aws = TestEndpoints.aws();
    String queue;
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName("lambda-writer-" + UUID.randomUUID())).queueUrl();
    }
    Map<String, String> pollerEnv = PackagedFunction.testBedEnvironment(db, tables, aws);
    pollerEnv.put("OUTBOX_DEFAULT_DESTINATION", queue);
    pollerEnv.put("OUTBOX_WAKE_LINGER_MS", "0"); // each woken run drains once: no run is left
    // lingering to publish the next request's event without its wake-up
    Jdbi jdbi = db.jdbi();
    try (QueueDrainer drainer = new QueueDrainer(aws, queue, 1);
        LambdaRuntimeEmulator poller = LambdaRuntimeEmulator.of(OutboxFunction.POLLER);
        LambdaRuntimeEmulator writer = new LambdaRuntimeEmulator(Duration.ofSeconds(10))) {
      poller.scaleOnDemand(
          env ->
              PackagedFunction.start(
                  OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), pollerEnv, env),
          1);
      Map<String, String> writerEnv = new HashMap<>(aws.environment());
      writerEnv.put("OUTBOX_JDBC_URL", db.jdbcUrl());
      writerEnv.put("OUTBOX_DB_USER", db.user());
      writerEnv.put("OUTBOX_DB_PASSWORD", db.password());
      writerEnv.put("OUTBOX_TABLE_PREFIX", tables.prefix());
      writerEnv.put("AWS_ENDPOINT_URL_LAMBDA", poller.invokeEndpoint());
      writerEnv.put(
          "WAKE_UP_FUNCTION_ARN",
          "arn:aws:lambda:us-east-1:000000000000:function:outbox-poller:live");
      writer.scaleOnDemand(
          env ->
              PackagedFunction.startFixture(
                  "orders-writer", LambdaWriterFunction.class, writerEnv, env, List.of()),
          1);

      // Both started and warm (their first publish and wake-up behind them): cold starts are not
      // under test.
      for (int i = 0; i < 2; i++) {
        String warm = request(writer).get("eventId").asText();
        assertThat(drainer.awaitEvents(List.of(warm), Duration.ofSeconds(60))).isTrue();
      }

      List<String> ids = new ArrayList<>();
      List<Long> latencies = new ArrayList<>();
      for (int i = 0; i < REQUESTS; i++) {
        JsonNode answer = request(writer);
        String id = answer.get("eventId").asText();
        ids.add(id);
        long published = publishedAt(jdbi, tables, id, GAP);
        latencies.add(published - answer.get("committedAtMs").asLong());
        Thread.sleep(Math.max(0, answer.get("committedAtMs").asLong() + GAP.toMillis() - now()));
      }
      assertThat(drainer.awaitEvents(ids, Duration.ofSeconds(30))).isTrue();
      long worst = latencies.stream().mapToLong(Long::longValue).max().orElseThrow();
      System.out.printf(
          "commit to published, ms, a request every %d ms, the writer frozen between: %s%n",
          GAP.toMillis(), latencies);
      assertThat(worst).as("p99 (the worst of %d), ms: %s", REQUESTS, latencies).isLessThan(1_000);
    } finally {
      try (SqsClient sqs = aws.sqs()) {
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
      db.dropTables(tables);
    }
  }

  private static JsonNode request(LambdaRuntimeEmulator writer) throws Exception {
    LambdaRuntimeEmulator.Result result = writer.invoke("{}", Duration.ofSeconds(10));
    assertThat(result.failed()).as(result.body()).isFalse();
    return JSON.readTree(result.body());
  }

  /**
   * When the event's row left the outbox (published), by the wall clock; or, when it is still there
   * after {@code wait}, a time past it: the next request would thaw its wake-up.
   */
  private static long publishedAt(Jdbi jdbi, OutboxTables tables, String id, Duration wait)
      throws InterruptedException {
    long deadline = now() + wait.toMillis();
    return PollerWakeUpTimelineContract.leaves(jdbi, tables, id, wait)
        ? now()
        : deadline + wait.toMillis();
  }

  private static long now() {
    return System.currentTimeMillis();
  }
}
