package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The wake-up timeline, end to end: the application commits through the writer library and wakes
 * the poller with a {@link PollerWaker} (the AWS SDK's Lambda client calling the Runtime API
 * emulator's {@code Invoke} endpoint), the packaged poller jar runs the wake-up under AWS's runtime
 * interface client and publishes to SQS on the test bed. A woken run publishes within its linger,
 * and a commit during the waker's quiet period sends no wake-up: it is published by the same run,
 * which claims through the quiet period the wake-up announced. Then wake-ups fail (Lambda refuses
 * them: {@link LambdaInvokeStandIn}, as nothing on the test bed can deny an invocation): the commit
 * succeeds, nothing publishes it until the schedule's next run, which does. One subclass per
 * database.
 */
abstract class PollerWakeUpTimelineContract {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Long enough that the second commit, made as soon as the first row has left the table, falls
   * within the woken run's linger on a loaded machine too.
   */
  private static final Duration LINGER = Duration.ofSeconds(5);

  /**
   * The waker's quiet period: long enough that the second commit, made as soon as the first row has
   * left the table, falls within it on a loaded machine too.
   */
  private static final Duration QUIET = PollerWaker.MAX_QUIET_PERIOD;

  abstract TestDatabase database();

  @Test
  void aWokenPollerPublishesWithinItsLinger_andTheScheduleIsTheSafetyNetWhenWakeUpsFail()
      throws Exception {
    TestDatabase db = database();
    OutboxTables tables = db.createTables("wakeup");
    AwsEndpoint aws = TestEndpoints.aws();
    String queue;
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName("wakeup-" + UUID.randomUUID())).queueUrl();
    }
    String scheduledEvent =
        Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, aws);
    env.put("OUTBOX_DEFAULT_DESTINATION", queue);
    env.put("OUTBOX_WAKE_LINGER_MS", Long.toString(LINGER.toMillis()));
    Jdbi jdbi = db.jdbi();
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    try (QueueDrainer drainer = new QueueDrainer(aws, queue, 1);
        LambdaRuntimeEmulator runtime = LambdaRuntimeEmulator.of(OutboxFunction.POLLER);
        PackagedFunction poller =
            PackagedFunction.start(
                OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, runtime);
        LambdaClient lambda = LambdaInvokeStandIn.client(URI.create(runtime.invokeEndpoint()));
        PollerWaker waker =
            PollerWaker.builder()
                .functionName("outbox-poller:live")
                .lambdaClient(lambda)
                .quietPeriod(QUIET)
                .build()) {
      // A warm container, as the schedule leaves one: the cold start is not under test.
      LambdaRuntimeEmulator.Result warm = runtime.invoke(scheduledEvent, Duration.ofSeconds(60));
      assertThat(warm.failed()).as(warm.body()).isFalse();

      long committedAt = System.nanoTime();
      String first = commit(jdbi, writer, waker);
      // The broker's consumer may be slow here; the row leaving the table is the poller's part.
      assertThat(leaves(jdbi, tables, first, Duration.ofSeconds(20)))
          .as("the woken poller published the event; %s", poller.output())
          .isTrue();
      long publishedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - committedAt);
      String second = commit(jdbi, writer, waker); // within the waker's quiet period
      assertThat(drainer.awaitEvents(List.of(first, second), Duration.ofSeconds(20))).isTrue();

      List<CompletableFuture<LambdaRuntimeEmulator.Result>> wakeUps = runtime.invokedByFunctions();
      JsonNode woken = summary(wakeUps.get(0).get(60, TimeUnit.SECONDS));
      System.out.printf(
          "%s: commit to published %d ms with a warm poller; woken run %s; waker %s%n",
          db.name(), publishedMs, woken, waker.counts());
      assertThat(wakeUps).as("the second commit, in the quiet period, sent none").hasSize(1);
      assertThat(waker.counts()).isEqualTo(new PollerWaker.Counts(2, 1, 0));
      assertThat(woken.get("woken").asBoolean()).isTrue();
      assertThat(woken.get("published").asInt())
          .as("both commits, by the one woken run")
          .isEqualTo(2);
      assertThat(woken.get("stoppedBecause").asText()).isEqualTo("lingered");

      // Wake-ups refused: the commit stands, and only the schedule publishes it.
      try (LambdaInvokeStandIn refusing =
              new LambdaInvokeStandIn(LambdaInvokeStandIn.Answer.NOT_ALLOWED);
          LambdaClient refused = LambdaInvokeStandIn.client(refusing.endpoint());
          PollerWaker failing =
              PollerWaker.builder()
                  .functionName("outbox-poller:live")
                  .lambdaClient(refused)
                  .build()) {
        String third = commit(jdbi, writer, failing);
        assertThat(drainer.awaitEvents(List.of(third), Duration.ofSeconds(3)))
            .as("no run started: nothing publishes it yet")
            .isFalse();
        assertThat(failing.counts()).isEqualTo(new PollerWaker.Counts(1, 0, 1));
        assertThat(runtime.invokedByFunctions()).hasSize(1);

        JsonNode scheduled = summary(runtime.invoke(scheduledEvent, Duration.ofSeconds(60)));
        assertThat(scheduled.get("published").asInt()).isEqualTo(1);
        assertThat(drainer.awaitEvents(List.of(third), Duration.ofSeconds(20))).isTrue();
      }
      assertThat(drainer.duplicates()).isEmpty();
    } finally {
      try (SqsClient sqs = aws.sqs()) {
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
      db.dropTables(tables);
    }
  }

  /** Commits one event and wakes the poller after it; returns the event's id. */
  static String commit(Jdbi jdbi, OutboxWriter writer, PollerWaker waker) {
    return jdbi.inTransaction(
        handle -> {
          OutboxEvent event =
              OutboxEvent.builder()
                  .aggregateType("order")
                  .aggregateId("order-" + UUID.randomUUID())
                  .eventType("order.created")
                  .payload("{\"lines\":1}")
                  .build();
          writer.append(handle, event);
          waker.afterCommit(handle);
          return event.id().toString();
        });
  }

  /** Waits until the outbox row of {@code id} is gone (published), at most {@code wait}. */
  static boolean leaves(Jdbi jdbi, OutboxTables tables, String id, Duration wait)
      throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      int left =
          jdbi.withHandle(
              h ->
                  h.createQuery(
                          "SELECT count(*) FROM "
                              + tables.messages()
                              + " WHERE CAST(id AS CHAR(36)) = :id")
                      .bind("id", id)
                      .mapTo(Integer.class)
                      .one());
      if (left == 0) {
        return true;
      }
      Thread.sleep(10);
    }
    return false;
  }

  private static JsonNode summary(LambdaRuntimeEmulator.Result result) throws Exception {
    assertThat(result.failed()).as(result.body()).isFalse();
    return JSON.readTree(result.body());
  }
}
