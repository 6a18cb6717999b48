package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.OutboxPoller;
import dev.lambdaoutbox.poller.internal.PollerWiring;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxTables;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The real poller (its store, publisher and drain loop, through the poller module's public API) on
 * a set of test tables and the test bed's SQS, with SQS helpers for the tests that replay into it.
 */
public final class PollerRunner implements AutoCloseable {
  public final SqsClient sqs;
  private final SnsClient sns;
  private final JdbcConnectionProvider connections;
  private final OutboxPoller poller;

  public PollerRunner(TestDatabase db, OutboxTables tables) {
    AwsEndpoint aws = TestEndpoints.aws();
    this.sqs = aws.sqs();
    this.sns = aws.sns();
    PollerConfig config =
        PollerConfig.fromEnvironment(
            Map.of(
                "OUTBOX_JDBC_URL", db.jdbcUrl(),
                "OUTBOX_DB_USER", db.user(),
                "OUTBOX_DB_PASSWORD", db.password(),
                "OUTBOX_TABLE_PREFIX", tables.prefix(),
                "OUTBOX_PUBLISH_TIMEOUT_MS", "5000",
                "OUTBOX_LEASE_SECONDS", "60",
                "OUTBOX_SAFETY_MARGIN_MS", "1000",
                "OUTBOX_MAX_RETRIES", "3",
                "OUTBOX_BATCH_SIZE", "50"));
    this.connections = Stores.connections(db, tables, config.connectionLimits());
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    Clock clock = Clock.systemUTC();
    this.poller =
        new OutboxPoller(
            config,
            OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build(),
            PollerWiring.publisher(config, sns, sqs),
            clock,
            new SplittableRandom(7),
            new JsonLogger(
                "outbox-poller", OutboxPoller.class, JsonLogger.Level.WARN, quiet, clock),
            new EmfMetrics("LambdaOutbox", "outbox-poller", quiet, clock));
  }

  /** One scheduled invocation, with a minute to run: it drains what is due. */
  public PollSummary poll() {
    return poller.run(() -> 60_000, "poller-" + UUID.randomUUID());
  }

  /** A new, empty queue; its URL. */
  public String queue(String label) {
    String name =
        "dlq-"
            + label
            + "-"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    return sqs.createQueue(r -> r.queueName(name)).queueUrl();
  }

  /**
   * Receives (and deletes) messages until {@code expected} have come or 30 s passed, then waits a
   * second more, so that a duplicate would show up too.
   */
  public List<Message> receive(String queueUrl, int expected) {
    List<Message> received = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (received.size() < expected && System.nanoTime() < deadline) {
      received.addAll(receiveOnce(queueUrl));
    }
    List<Message> extra;
    do {
      extra = receiveOnce(queueUrl);
      received.addAll(extra);
    } while (!extra.isEmpty());
    return received;
  }

  private List<Message> receiveOnce(String queueUrl) {
    List<Message> messages =
        sqs.receiveMessage(
                r ->
                    r.queueUrl(queueUrl)
                        .maxNumberOfMessages(10)
                        .waitTimeSeconds(1)
                        .messageAttributeNames("All"))
            .messages();
    for (Message m : messages) {
      sqs.deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(m.receiptHandle()));
    }
    return messages;
  }

  public static String attribute(Message message, String name) {
    var value = message.messageAttributes().get(name);
    return value == null ? null : value.stringValue();
  }

  @Override
  public void close() {
    poller.close();
    connections.close();
    sqs.close();
    sns.close();
  }
}
