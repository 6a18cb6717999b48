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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A writer that is itself a Lambda function ({@link LambdaWriterFunction}: each request appends an
 * event, commits, wakes the poller and returns) runs in the runtime emulator, which freezes it
 * after every request; the packaged poller runs in another, frozen between its runs too. Requests
 * come further apart than the one second allowed, so a wake-up left to the waker's thread when the
 * handler returned would wait, frozen, for the next request: every event must be published within a
 * second of its commit all the same. With no quiet period, each request's wake-up is sent before
 * its handler returns; with the default one, the requests of a quiet period send none (nothing is
 * left to a frozen sender): the run the first one woke claims through it and publishes them, and
 * the first request after it sends the next.
 */
class LambdaHostedWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration GAP = Duration.ofMillis(1_200);
  private static final int REQUESTS = 6;

  @ParameterizedTest(name = "quiet period {0} ms")
  @ValueSource(longs = {0, 5_000})
  void aLambdaHostedWritersEvents_arePublishedWithinASecond_thoughItIsFrozenAfterEachRequest(
      long quietMs) throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = db.createTables("lambdawriter");
    AwsEndpoint aws = TestEndpoints.aws();
    String queue;
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName("lambda-writer-" + UUID.randomUUID())).queueUrl();
    }
    Map<String, String> pollerEnv = PackagedFunction.testBedEnvironment(db, tables, aws);
    pollerEnv.put("OUTBOX_DEFAULT_DESTINATION", queue);
    // Each woken run drains once but for the quiet period its wake-up announces: no run is left
    // lingering to publish the next request's event without a wake-up that asked for it.
    pollerEnv.put("OUTBOX_WAKE_LINGER_MS", "0");
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
      writerEnv.put("WAKE_UP_QUIET_MS", Long.toString(quietMs));
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

      // Past the warm-up's quiet period: the first measured request sends a wake-up.
      Thread.sleep(quietMs);
      int wokenBefore = poller.invokedByFunctions().size();
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
      int wakeUps = poller.invokedByFunctions().size() - wokenBefore;
      long worst = latencies.stream().mapToLong(Long::longValue).max().orElseThrow();
      System.out.printf(
          "quiet period %d ms: commit to published, ms, a request every %d ms, the writer frozen"
              + " between: %s; %d wake-ups for %d requests%n",
          quietMs, GAP.toMillis(), latencies, wakeUps, REQUESTS);
      assertThat(worst).as("p99 (the worst of %d), ms: %s", REQUESTS, latencies).isLessThan(1_000);
      if (quietMs == 0) {
        assertThat(wakeUps).as("a wake-up per request").isEqualTo(REQUESTS);
      } else {
        // 6 requests 1.2 s apart span 6 s: the first wakes, and one after the quiet period.
        assertThat(wakeUps).as("wake-ups in proportion to the quiet periods").isBetween(1, 2);
      }
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
