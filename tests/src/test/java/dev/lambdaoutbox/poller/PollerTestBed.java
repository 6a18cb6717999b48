package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.internal.claimcheck.PayloadUploader;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.rate.Sleeper;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Everything a poller test needs from the local test bed: private outbox tables in the real
 * PostgreSQL, SNS topics and SQS queues on the real endpoint, handlers wired as in Lambda but with
 * a hand-moved clock, and readers for what ended up where.
 */
final class PollerTestBed implements AutoCloseable {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final ObjectMapper JSON = new ObjectMapper();

  final TestDatabase db;
  final AwsEndpoint aws;
  final OutboxTables tables;
  final MutableClock clock = new MutableClock(T0);
  final SnsClient sns;
  final SqsClient sqs;

  private final String label;
  private final boolean deleteTopicsAndQueues;
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final List<String> topics = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();

  /** A bed on the test bed's PostgreSQL. */
  PollerTestBed(String label) {
    this(label, TestEndpoints.postgres(), TestEndpoints.aws(), true);
  }

  /** On {@code db} (e.g. a private server) and the test bed's SNS/SQS endpoint. */
  PollerTestBed(String label, TestDatabase db) {
    this(label, db, TestEndpoints.aws(), true);
  }

  /**
   * On {@code db} and a private SNS/SQS endpoint ({@link dev.lambdaoutbox.testing.PrivateServers})
   * instead of the shared test bed's: its topics and queues are left to go with the endpoint.
   */
  PollerTestBed(String label, TestDatabase db, AwsEndpoint privateEndpoint) {
    this(label, db, privateEndpoint, false);
  }

  private PollerTestBed(
      String label, TestDatabase db, AwsEndpoint aws, boolean deleteTopicsAndQueues) {
    this.label = label;
    this.db = db;
    this.aws = aws;
    this.deleteTopicsAndQueues = deleteTopicsAndQueues;
    this.tables = db.createTables(label);
    this.sns = sns(aws, Duration.ofSeconds(5));
    this.sqs = sqs(aws, Duration.ofSeconds(5));
  }

  /** Empties the tables, resets the clock and the captured output. */
  void reset() {
    execute("DELETE FROM " + tables.messages());
    execute("DELETE FROM " + tables.deadLetters());
    execute("DELETE FROM " + tables.destinationHealth());
    execute("DELETE FROM " + tables.parkedKeys());
    execute("UPDATE " + tables.claimCursors() + " SET aggregate_type = NULL, aggregate_id = NULL");
    clock.set(T0);
    synchronized (output) {
      output.reset();
    }
  }

  // ---- configuration and handlers

  /** The poller's environment for these tables, with {@code overrides} as name, value pairs. */
  Map<String, String> env(String... overrides) {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.put("OUTBOX_PUBLISH_TIMEOUT_MS", "5000");
    env.put("OUTBOX_LEASE_SECONDS", "60");
    env.put("OUTBOX_SAFETY_MARGIN_MS", "1000");
    env.put("OUTBOX_LOG_LEVEL", "DEBUG");
    // Read only with OUTBOX_CLAIM_CHECK_BUCKET: the test bed's account owns its buckets.
    env.put("OUTBOX_CLAIM_CHECK_BUCKET_OWNER", AwsEndpoint.ACCOUNT);
    for (int i = 0; i < overrides.length; i += 2) {
      if (overrides[i + 1] == null) {
        env.remove(overrides[i]);
      } else {
        env.put(overrides[i], overrides[i + 1]);
      }
    }
    return env;
  }

  PollerConfig config(String... overrides) {
    return PollerConfig.fromEnvironment(env(overrides));
  }

  /**
   * The real JDBC store on its own connection, as the poller's wiring builds it: its results
   * bounded by the function's memory, with a second connection for completions when the poller
   * pipelines.
   */
  OutboxStore store(PollerConfig config) {
    return store(config, executor -> executor);
  }

  /** As {@link #store(PollerConfig)}, its first connection's executor wrapped by {@code wrap}. */
  OutboxStore store(PollerConfig config, UnaryOperator<SqlExecutor> wrap) {
    JdbcConnectionProvider connections = Stores.connections(db, tables, config.connectionLimits());
    resources.add(connections);
    long budget = ((DatabaseSettings) config.database()).resultBudgetBytes();
    OutboxStore.Builder store =
        OutboxStore.builder(wrap.apply(JdbcExecutor.of(connections, budget)))
            .tables(tables)
            .retention(config.storeTuning().retention())
            .ordering(config.ordering())
            .idempotencyWindow(config.storeTuning().idempotencyWindow());
    if (config.publishing().pipeline()) {
      store.completionsOnSecondConnection();
    }
    return store.build();
  }

  /** The real batch publisher on the test bed's SNS and SQS. */
  MessagePublisher publisher(PollerConfig config) {
    return publisher(config, sns, sqs);
  }

  MessagePublisher publisher(PollerConfig config, SnsClient snsClient, SqsClient sqsClient) {
    MessagePublisher publisher = PollerWiring.publisher(config, snsClient, sqsClient);
    resources.add(publisher);
    return publisher;
  }

  /** A handler as Lambda would build it, but on the hand-moved clock. */
  PollerHandler handler(PollerConfig config) {
    return handler(config, store(config), publisher(config));
  }

  PollerHandler handler(PollerConfig config, OutboxStore store, MessagePublisher publisher) {
    return handler(config, store, publisher, clock);
  }

  /** A handler as Lambda would build it, storing claim-checked payloads with {@code uploader}. */
  PollerHandler handler(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      PayloadUploader uploader) {
    return new PollerHandler(
        PollerWiring.create(
            config, store, publisher, clock, new SplittableRandom(7), out, uploader));
  }

  /** An S3 client for the test bed's own S3, closed with the bed. */
  S3Client s3() {
    return s3(aws.endpoint(), Duration.ofSeconds(30));
  }

  /**
   * An S3 client of the test bed's account at {@code endpoint} (e.g. an {@link
   * dev.lambdaoutbox.testing.S3Front}), as the poller builds its own: {@code timeout} per call.
   */
  S3Client s3(URI endpoint, Duration timeout) {
    return closeLater(
        aws.configure(S3Client.builder())
            .endpointOverride(endpoint)
            .httpClientBuilder(httpClient(timeout))
            .overrideConfiguration(o -> o.apiCallTimeout(timeout))
            .build());
  }

  /**
   * A handler as Lambda would build it, on the real clock, publishing through {@code sqsClient}:
   * for tests where real time passes (servers restarted, leases running out).
   */
  PollerHandler realTimeHandler(PollerConfig config, SqsClient sqsClient) {
    return handler(config, store(config), publisher(config, sns, sqsClient), Clock.systemUTC());
  }

  /**
   * On the hand-moved clock, a call waiting for its destination's send rate moves the clock instead
   * of sleeping.
   */
  private PollerHandler handler(
      PollerConfig config, OutboxStore store, MessagePublisher publisher, Clock handlerClock) {
    Sleeper sleeper = handlerClock == clock ? clock::atLeast : Sleeper.on(handlerClock);
    return new PollerHandler(
        PollerWiring.create(
            config, store, publisher, handlerClock, new SplittableRandom(7), out, sleeper));
  }

  /** One scheduled invocation with a 60 s timeout. */
  PollSummary invoke(PollerHandler handler) {
    return invoke(handler, Duration.ofSeconds(60));
  }

  PollSummary invoke(PollerHandler handler, Duration timeout) {
    return invoke(handler, new FakeLambdaContext("outbox-poller", timeout));
  }

  /**
   * One scheduled invocation whose remaining time runs down with the hand-moved clock: as calls
   * wait for their send rates, not as real time passes.
   */
  PollSummary invokeOnTheClock(PollerHandler handler, Duration timeout) {
    return invoke(handler, new FakeLambdaContext("outbox-poller", timeout, clock));
  }

  private PollSummary invoke(PollerHandler handler, FakeLambdaContext context) {
    Map<String, Object> json = handler.poll(context);
    return new PollSummary(
        (Integer) json.get("claimed"),
        (Integer) json.get("published"),
        (Integer) json.get("retried"),
        (Integer) json.get("deadLettered"),
        (Integer) json.get("deferred"),
        (Integer) json.get("released"),
        (Integer) json.get("heldBack"),
        (Integer) json.get("leaseLost"),
        (Integer) json.get("rounds"),
        (String) json.get("stoppedBecause"),
        (Long) json.get("durationMs"));
  }

  /** Invokes every handler at once, each on a thread of its own; their summaries, in order. */
  List<PollSummary> invokeAtOnce(List<PollerHandler> handlers) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(handlers.size());
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<PollSummary>> runs = new ArrayList<>();
      for (PollerHandler handler : handlers) {
        runs.add(
            pool.submit(
                () -> {
                  go.await();
                  return invoke(handler);
                }));
      }
      go.countDown();
      List<PollSummary> summaries = new ArrayList<>();
      for (Future<PollSummary> run : runs) {
        summaries.add(run.get());
      }
      return summaries;
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- writing events

  static OutboxEvent.Builder event(String eventType, String aggregateId) {
    return OutboxEvent.builder()
        .aggregateType("order")
        .aggregateId(aggregateId)
        .eventType(eventType)
        .payload("{\"aggregate\":\"" + aggregateId + "\",\"type\":\"" + eventType + "\"}")
        .occurredAt(T0.minusSeconds(1));
  }

  List<UUID> append(OutboxEvent... events) {
    return append(OutboxWriter.builder().tables(tables).clock(clock).build(), List.of(events));
  }

  /** {@code count} events of aggregates {@code label}-0, -1, ..., in one transaction; their ids. */
  List<UUID> appendEvents(String label, int count) {
    List<OutboxEvent> events = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      events.add(event("order.created", label + "-" + i).build());
    }
    return append(events.toArray(OutboxEvent[]::new));
  }

  List<UUID> append(OutboxWriter writer, List<OutboxEvent> events) {
    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      writer.appendAll(c, events);
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return events.stream().map(OutboxEvent::id).toList();
  }

  // ---- the broker

  String name(String what) {
    return "poller-"
        + label
        + "-"
        + what
        + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
  }

  String topic(String name) {
    return topicNamed(name(name));
  }

  /** A topic of exactly this name (deleted when the bed closes); its ARN. */
  String topicNamed(String exactName) {
    return created(topics, sns.createTopic(r -> r.name(exactName)).topicArn());
  }

  String fifoTopic(String name) {
    Map<String, String> fifo = Map.of("FifoTopic", "true", "ContentBasedDeduplication", "false");
    return created(
        topics, sns.createTopic(r -> r.name(name(name) + ".fifo").attributes(fifo)).topicArn());
  }

  String queue(String name) {
    return created(queues, sqs.createQueue(r -> r.queueName(name(name))).queueUrl());
  }

  String fifoQueue(String name) {
    Map<QueueAttributeName, String> fifo =
        Map.of(
            QueueAttributeName.FIFO_QUEUE, "true",
            QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false");
    return created(
        queues,
        sqs.createQueue(r -> r.queueName(name(name) + ".fifo").attributes(fifo)).queueUrl());
  }

  private static String created(List<String> names, String name) {
    synchronized (names) {
      names.add(name);
    }
    return name;
  }

  /** Subscribes the queue to the topic with raw delivery: the body and attributes as published. */
  void subscribeRaw(String topicArn, String queueUrl) {
    AwsEndpoint.subscribeRaw(sns, sqs, topicArn, queueUrl);
  }

  /**
   * Receives (and deletes) messages until {@code expected} have come or 20 s passed, then waits a
   * second more for any extra (a duplicate would show up here).
   */
  List<Message> receive(String queueUrl, int expected) {
    List<Message> received = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (received.size() < expected && System.nanoTime() < deadline) {
      received.addAll(receiveOnce(queueUrl, 1));
    }
    List<Message> extra;
    do {
      extra = receiveOnce(queueUrl, 1);
      received.addAll(extra);
    } while (!extra.isEmpty());
    return received;
  }

  private List<Message> receiveOnce(String queueUrl, int waitSeconds) {
    List<Message> messages =
        sqs.receiveMessage(
                r ->
                    r.queueUrl(queueUrl)
                        .maxNumberOfMessages(10)
                        .waitTimeSeconds(waitSeconds)
                        .messageAttributeNames("All")
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
            .messages();
    if (!messages.isEmpty()) {
      List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(messages.size());
      for (int i = 0; i < messages.size(); i++) {
        entries.add(
            DeleteMessageBatchRequestEntry.builder()
                .id(String.valueOf(i))
                .receiptHandle(messages.get(i).receiptHandle())
                .build());
      }
      DeleteMessageBatchResponse deleted =
          sqs.deleteMessageBatch(r -> r.queueUrl(queueUrl).entries(entries));
      if (!deleted.failed().isEmpty()) {
        throw new IllegalStateException("could not delete received messages: " + deleted.failed());
      }
    }
    return messages;
  }

  /** PostgreSQL and MariaDB, for tests that run on both: {@code @MethodSource} of a supplier. */
  static Stream<Arguments> bothDatabases() {
    return Stream.of(
        Arguments.of((Supplier<TestDatabase>) TestEndpoints::postgres),
        Arguments.of((Supplier<TestDatabase>) TestEndpoints::mysql));
  }

  /** Each aggregate's event ids in the order received; duplicates kept, so they would show. */
  static Map<String, List<UUID>> byAggregate(List<Message> received) {
    Map<String, List<UUID>> order = new LinkedHashMap<>();
    for (Message m : received) {
      order
          .computeIfAbsent(attribute(m, "aggregateId"), k -> new ArrayList<>())
          .add(UUID.fromString(attribute(m, "eventId")));
    }
    return order;
  }

  static String attribute(Message message, String name) {
    var value = message.messageAttributes().get(name);
    return value == null ? null : value.stringValue();
  }

  // ---- the tables

  /** The outbox row as column to value (times as Instant), or null when it is gone. */
  Map<String, Object> outboxRow(UUID id) {
    return row(tables.messages(), id);
  }

  Map<String, Object> deadLetter(UUID id) {
    return row(tables.deadLetters(), id);
  }

  /** The highest retry count of the rows in the outbox; 0 when it is empty. */
  int maxRetryCount() {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT COALESCE(MAX(retry_count), 0) FROM " + tables.messages())) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Receives every one of {@code written} from {@code queue}, each once and nothing else. */
  void assertReceivedOnce(String queue, List<UUID> written) {
    List<String> received =
        receive(queue, written.size()).stream().map(m -> attribute(m, "eventId")).toList();
    Set<String> expected = new HashSet<>();
    written.forEach(id -> expected.add(id.toString()));
    assertThat(new HashSet<>(received)).isEqualTo(expected);
    assertThat(received).as("each delivered once").hasSize(written.size());
  }

  long count(String table) {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  void execute(String sql) {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Every row of {@code table}, as {@link #outboxRow} reads one. */
  List<Map<String, Object>> rows(String table) {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + table)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(columns(rs));
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private Map<String, Object> row(String table, UUID id) {
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement("SELECT * FROM " + table + " WHERE id = ?")) {
      JdbcValues.setUuid(ps, 1, id, db.dialect());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? columns(rs) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The current row as column (lower case) to value, times as Instant, ids as UUID. */
  private Map<String, Object> columns(ResultSet rs) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      String column = meta.getColumnLabel(i).toLowerCase(Locale.ROOT);
      Object value;
      if (meta.getColumnType(i) == Types.TIMESTAMP
          || meta.getColumnType(i) == Types.TIMESTAMP_WITH_TIMEZONE) {
        value = JdbcValues.getInstant(rs, column, db.dialect());
      } else if (column.equals("id")) {
        value = JdbcValues.getUuid(rs, column, db.dialect());
      } else {
        value = rs.getObject(i);
      }
      row.put(column, value);
    }
    return row;
  }

  // ---- captured logs and metrics

  /** Forgets the logs and metrics captured so far. */
  void clearOutput() {
    synchronized (output) {
      output.reset();
    }
  }

  /** Where the handlers' logs and metrics go ({@link #outputLines()} reads them). */
  PrintStream out() {
    return out;
  }

  List<JsonNode> outputLines() {
    String text;
    synchronized (output) {
      text = output.toString(StandardCharsets.UTF_8);
    }
    List<JsonNode> lines = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.isBlank()) {
        try {
          lines.add(JSON.readTree(line));
        } catch (Exception e) {
          throw new IllegalStateException("not a JSON line: " + line, e);
        }
      }
    }
    return lines;
  }

  List<JsonNode> logs(String level) {
    return outputLines().stream()
        .filter(l -> l.has("level") && l.get("level").asText().equals(level))
        .toList();
  }

  List<JsonNode> metricLines() {
    return outputLines().stream().filter(l -> l.has("_aws")).toList();
  }

  // ---- SDK clients

  static SnsClient sns(URI endpoint, Duration timeout) {
    return sns(sharedCredentialsAt(endpoint), timeout);
  }

  static SqsClient sqs(URI endpoint, Duration timeout) {
    return sqs(sharedCredentialsAt(endpoint), timeout);
  }

  /**
   * An SNS client for {@code aws} as the poller builds one: URL-connection HTTP client, 2 s to
   * connect, {@code timeout} per call.
   */
  static SnsClient sns(AwsEndpoint aws, Duration timeout) {
    return aws.configure(SnsClient.builder())
        .httpClientBuilder(httpClient(timeout))
        .overrideConfiguration(o -> o.apiCallTimeout(timeout))
        .build();
  }

  /** An SQS client for {@code aws} as the poller builds one; {@code interceptors} see its calls. */
  static SqsClient sqs(AwsEndpoint aws, Duration timeout, ExecutionInterceptor... interceptors) {
    return aws.configure(SqsClient.builder())
        .httpClientBuilder(httpClient(timeout))
        .overrideConfiguration(
            o -> {
              o.apiCallTimeout(timeout);
              for (ExecutionInterceptor interceptor : interceptors) {
                o.addExecutionInterceptor(interceptor);
              }
            })
        .build();
  }

  /** The shared test bed's region and credentials, at {@code endpoint}. */
  private static AwsEndpoint sharedCredentialsAt(URI endpoint) {
    AwsEndpoint shared = TestEndpoints.aws();
    return new AwsEndpoint(
        endpoint, shared.region(), shared.accessKeyId(), shared.secretAccessKey());
  }

  private static UrlConnectionHttpClient.Builder httpClient(Duration timeout) {
    return UrlConnectionHttpClient.builder()
        .connectionTimeout(Duration.ofSeconds(2))
        .socketTimeout(timeout);
  }

  /**
   * A store on these tables over the test bed's Data API emulator; its client closes with the bed.
   */
  OutboxStore dataApiStore() {
    RdsDataClient client = closeLater(TestEndpoints.dataApi().client());
    return OutboxStore.builder(TestEndpoints.dataApi().executor(client).build())
        .tables(tables)
        .build();
  }

  /** Keeps {@code resource} until the bed closes. */
  <T extends AutoCloseable> T closeLater(T resource) {
    resources.add(resource);
    return resource;
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable r : resources) {
      r.close();
    }
    if (deleteTopicsAndQueues) {
      // The endpoint is shared by every test class and slows down as it fills up.
      topics.forEach(arn -> sns.deleteTopic(r -> r.topicArn(arn)));
      queues.forEach(url -> sqs.deleteQueue(r -> r.queueUrl(url)));
    }
    sns.close();
    sqs.close();
    db.dropTables(tables);
  }
}
