package dev.lambdaoutbox.reprocessor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.Backend;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * a set of test tables and the test bed's SNS/SQS, with SQS helpers for the tests that replay into
 * it, and its EMF lines kept.
 */
public final class PollerRunner implements AutoCloseable {
  public final SqsClient sqs;
  private final SnsClient sns;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final ByteArrayOutputStream metricLines = new ByteArrayOutputStream();
  private final OutboxPoller poller;

  /** Over JDBC, with a retry budget of 3 and batches of 50. */
  public PollerRunner(TestDatabase db, OutboxTables tables) {
    this(db, tables, null, Map.of());
  }

  /**
   * @param executor the store's executor; null for a JDBC connection of the runner's own
   * @param overrides poller variables besides the database's (e.g. {@code OUTBOX_ROUTES})
   */
  public PollerRunner(
      TestDatabase db, OutboxTables tables, SqlExecutor executor, Map<String, String> overrides) {
    AwsEndpoint aws = TestEndpoints.aws();
    this.sqs = aws.sqs();
    this.sns = aws.sns();
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.put("OUTBOX_PUBLISH_TIMEOUT_MS", "5000");
    env.put("OUTBOX_LEASE_SECONDS", "60");
    env.put("OUTBOX_SAFETY_MARGIN_MS", "1000");
    env.put("OUTBOX_MAX_RETRIES", "3");
    env.put("OUTBOX_BATCH_SIZE", "50");
    env.putAll(overrides);
    PollerConfig config = PollerConfig.fromEnvironment(env);
    SqlExecutor stores = executor;
    if (stores == null) {
      JdbcConnectionProvider connections =
          Stores.connections(db, tables, config.connectionLimits());
      resources.add(connections);
      stores = JdbcExecutor.of(connections);
    }
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    Clock clock = Clock.systemUTC();
    this.poller =
        PollerWiring.poller(
            config,
            OutboxStore.builder(stores).tables(tables).ordering(config.ordering()).build(),
            PollerWiring.publisher(config, sns, sqs),
            clock,
            new SplittableRandom(7),
            new JsonLogger(
                "outbox-poller", OutboxPoller.class, JsonLogger.Level.WARN, quiet, clock),
            new EmfMetrics(
                "LambdaOutbox",
                "outbox-poller",
                new PrintStream(metricLines, true, StandardCharsets.UTF_8),
                clock));
  }

  /** The EMF line of each invocation so far, parsed. */
  public List<JsonNode> metricLines() {
    return ReprocessorHarness.lines(metricLines);
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
    Backend.close(resources);
    sqs.close();
    sns.close();
  }
}
