package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.EmbeddedPoller;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.PublishListener;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.OutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * End to end on the local test bed: 20,000 pending rows in PostgreSQL published to an SNS topic
 * whose raw-delivery SQS subscriber receives them, first by the poller (real JDBC store, real batch
 * publisher, default settings), then by the naive loop (select a page, one {@code Publish} and one
 * {@code DELETE} per row). Both runs start from the same rows. After each run, consumers receive
 * and delete the queue's messages, counting distinct event ids, so every run is checked for
 * completeness. Prints events/s, the ratio, and the CPU the JVM, the SNS/SQS server and the machine
 * used during each run (what bounds it); asserts nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.EndToEndBenchmark [ROWS]
 * JAVA_OPTS="-Dbench.concurrency=N -Dbench.consumers=N" ...   (see the fields below)
 * </pre>
 */
public final class EndToEndBenchmark {
  /** Batch calls the poller keeps in flight; unset, the poller's default. */
  private static final Integer PUBLISH_CONCURRENCY = Integer.getInteger("bench.concurrency");

  /**
   * Threads emptying the queue while a run publishes (default none: the consumers start when it
   * ends). An endpoint whose cost grows with a queue's depth, as moto's does, needs them; with
   * LocalStack they only take CPU from the server the run is measuring.
   */
  private static final int CONSUMERS_DURING = Integer.getInteger("bench.consumers", 0);

  /** Threads that count and empty the queue after a run. */
  private static final int DRAINERS = 4;

  private EndToEndBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    TestDatabase db = TestEndpoints.postgres();
    AwsEndpoint aws = TestEndpoints.aws();
    OutboxTables tables = db.createTables("e2e");
    String source = tables.prefix() + "source";
    try (SnsClient sns = aws.sns();
        SqsClient sqs = aws.sqs();
        Connection c = db.open()) {
      c.setAutoCommit(true);
      String suffix = UUID.randomUUID().toString().substring(0, 8);
      String topic = sns.createTopic(r -> r.name("e2e-bench-" + suffix)).topicArn();
      String queue = sqs.createQueue(r -> r.queueName("e2e-bench-" + suffix)).queueUrl();
      AwsEndpoint.subscribeRaw(sns, sqs, topic, queue);
      new HistoryLoader(c, db.dialect(), tables)
          .pending(rows, Instant.now().minus(Duration.ofDays(1)));
      execute(c, "CREATE TABLE " + source + " AS SELECT * FROM " + tables.messages());
      CpuUse cpu = CpuUse.withServerOn(aws.endpoint().getPort());
      System.out.printf(
          "PostgreSQL at %s, SNS/SQS at %s (pid %s), %d CPUs, %,d rows of ~200-byte JSON%n",
          db.jdbcUrl(),
          aws.endpoint(),
          cpu.serverPid().isPresent() ? cpu.serverPid().getAsLong() : "unknown",
          Runtime.getRuntime().availableProcessors(),
          rows);

      // Warm-up, not reported: JIT, connections, the endpoint.
      reload(c, tables, source, 1_000);
      try (QueueDrainer consumer = new QueueDrainer(aws, queue, DRAINERS)) {
        runPoller(db, tables, topic, sns, sqs);
        reload(c, tables, source, 1_000);
        runNaive(c, tables, topic, sns);
        consumer.awaitMessages(2_000, Duration.ofMinutes(2));
      }

      reload(c, tables, source, rows);
      PollSummary summary;
      double pollerSeconds;
      try (QueueDrainer during = new QueueDrainer(aws, queue, CONSUMERS_DURING)) {
        CpuUse.Sample before = cpu.sample();
        summary = runPoller(db, tables, topic, sns, sqs);
        CpuUse.Sample after = cpu.sample();
        pollerSeconds = (after.wallNanos() - before.wallNanos()) / 1e9;
        print("poller (PublishBatch)", summary.published(), pollerSeconds, cpu, before, after);
        during.add(DRAINERS);
        during.awaitDistinctEvents(rows, Duration.ofMinutes(10));
        System.out.println("  queue received " + during.summary());
      }

      reload(c, tables, source, rows);
      int naivePublished;
      double naiveSeconds;
      try (QueueDrainer during = new QueueDrainer(aws, queue, CONSUMERS_DURING)) {
        CpuUse.Sample before = cpu.sample();
        naivePublished = runNaive(c, tables, topic, sns);
        CpuUse.Sample after = cpu.sample();
        naiveSeconds = (after.wallNanos() - before.wallNanos()) / 1e9;
        print("naive (one Publish each)", naivePublished, naiveSeconds, cpu, before, after);
        during.add(DRAINERS);
        during.awaitDistinctEvents(rows, Duration.ofMinutes(10));
        System.out.println("  queue received " + during.summary());
      }

      double ratio = (summary.published() / pollerSeconds) / (naivePublished / naiveSeconds);
      System.out.printf("ratio poller / naive: %.1fx%n", ratio);
      sns.deleteTopic(r -> r.topicArn(topic));
      sqs.deleteQueue(r -> r.queueUrl(queue));
      execute(c, "DROP TABLE " + source);
    } finally {
      db.dropTables(tables);
    }
  }

  /**
   * One invocation of the poller: default settings (batch 100) but {@link #PUBLISH_CONCURRENCY}.
   */
  private static PollSummary runPoller(
      TestDatabase db, OutboxTables tables, String topic, SnsClient sns, SqsClient sqs) {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.put("OUTBOX_DEFAULT_DESTINATION", topic);
    if (PUBLISH_CONCURRENCY != null) {
      env.put("OUTBOX_PUBLISH_CONCURRENCY", PUBLISH_CONCURRENCY.toString());
    }
    PollerConfig config = PollerConfig.fromEnvironment(env);
    PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
    Clock clock = Clock.systemUTC();
    TimedStore timed;
    try (JdbcConnectionProvider connections =
            Stores.connections(db, tables, ConnectionLimits.defaults());
        EmbeddedPoller poller =
            EmbeddedPoller.builder(
                    config,
                    timed =
                        new TimedStore(
                            OutboxStore.builder(JdbcExecutor.of(connections))
                                .tables(tables)
                                .build()))
                .brokers(sns, sqs)
                .listener(new TimedPublisher())
                .clock(clock)
                .random(new SplittableRandom(1))
                .logger(
                    new JsonLogger(
                        "bench", EndToEndBenchmark.class, JsonLogger.Level.INFO, System.err, clock))
                .metrics(new EmfMetrics("Bench", "bench", discard, clock))
                .build()) {
      PollSummary summary = poller.run(() -> 15 * 60 * 1000, "bench-" + UUID.randomUUID());
      System.out.printf(
          "  poller time: %.2f s claiming and recording, %.2f s publishing, %d rounds%n",
          (timed.claimNanos.get() + timed.completeNanos.get()) / 1e9,
          TimedPublisher.nanos.getAndSet(0) / 1e9,
          summary.rounds());
      return summary;
    }
  }

  /** Adds up the time spent publishing. */
  private static final class TimedPublisher implements PublishListener {
    static final AtomicLong nanos = new AtomicLong();

    @Override
    public void published(List<UUID> eventIds, long took) {
      nanos.addAndGet(took);
    }
  }

  /** The loop of many outbox write-ups: a page of rows, then per row one Publish, one DELETE. */
  private static int runNaive(Connection c, OutboxTables tables, String topic, SnsClient sns)
      throws SQLException {
    int published = 0;
    String select =
        "SELECT id, event_type, aggregate_type, aggregate_id, payload, occurred_at FROM "
            + tables.messages()
            + " WHERE status = 'PENDING' ORDER BY next_attempt_at, id LIMIT 100";
    try (PreparedStatement page = c.prepareStatement(select);
        PreparedStatement delete =
            c.prepareStatement("DELETE FROM " + tables.messages() + " WHERE id = ?")) {
      while (true) {
        List<Object[]> batch = new ArrayList<>();
        try (ResultSet rs = page.executeQuery()) {
          while (rs.next()) {
            batch.add(
                new Object[] {
                  rs.getObject(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getObject(6, java.time.OffsetDateTime.class).toInstant().toString()
                });
          }
        }
        if (batch.isEmpty()) {
          return published;
        }
        for (Object[] row : batch) {
          Map<String, MessageAttributeValue> attributes = new HashMap<>();
          attributes.put("eventId", string(row[0].toString()));
          attributes.put("eventType", string((String) row[1]));
          attributes.put("aggregateType", string((String) row[2]));
          attributes.put("aggregateId", string((String) row[3]));
          attributes.put("occurredAt", string((String) row[5]));
          sns.publish(
              r -> r.topicArn(topic).message((String) row[4]).messageAttributes(attributes));
          delete.setObject(1, row[0]);
          delete.executeUpdate();
          published++;
        }
      }
    }
  }

  private static MessageAttributeValue string(String value) {
    return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
  }

  private static void reload(Connection c, OutboxTables tables, String source, int rows)
      throws SQLException {
    execute(c, "DELETE FROM " + tables.messages());
    execute(
        c,
        "INSERT INTO "
            + tables.messages()
            + " SELECT * FROM "
            + source
            + " ORDER BY next_attempt_at LIMIT "
            + rows);
    execute(c, "VACUUM ANALYZE " + tables.messages());
  }

  private static void print(
      String name,
      int published,
      double seconds,
      CpuUse cpu,
      CpuUse.Sample before,
      CpuUse.Sample after) {
    System.out.printf(
        "%-26s %,7d events in %7.2f s = %,6.0f events/s; CPU: %s%n",
        name, published, seconds, published / seconds, cpu.describe(before, after));
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
