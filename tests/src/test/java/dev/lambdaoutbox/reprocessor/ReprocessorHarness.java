package dev.lambdaoutbox.reprocessor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.reprocessor.internal.action.DestinationCheck;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.store.waiting.WaitingRowStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.Backend;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The reprocessor handler as Lambda would run it, on one set of test tables, with its metrics and
 * logs captured. Destinations it sends events to are checked against the test bed's SNS and SQS.
 */
final class ReprocessorHarness implements AutoCloseable {
  /**
   * Every topic and queue, in the test bed's region: for tests about something else than which
   * destinations are allowed.
   */
  static ReplayDestinations anyDestination() {
    return allowing("arn:aws:sns:*:*:*,arn:aws:sqs:*:*:*");
  }

  /** The destinations {@code arns} name, in the test bed's region. */
  static ReplayDestinations allowing(String arns) {
    return ReplayDestinations.parse(arns, TestEndpoints.aws().region());
  }

  /**
   * The topics and queues of {@code account} in the test bed's region whose names start with {@code
   * namePrefix}: a wildcard, as the stack's IAM resources may be.
   */
  static ReplayDestinations allowingNamesStartingWith(String account, String namePrefix) {
    String region = TestEndpoints.aws().region();
    return allowing(
        String.join(
            ",",
            "arn:aws:sns:" + region + ":" + account + ":" + namePrefix + "*",
            "arn:aws:sqs:" + region + ":" + account + ":" + namePrefix + "*"));
  }

  /** Parses the JSON lines {@code captured} holds. */
  static List<JsonNode> lines(ByteArrayOutputStream captured) {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) {
        try {
          lines.add(JsonSupport.mapper().readTree(line));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return lines;
  }

  final TestDatabase db;
  final OutboxTables tables;
  final DeadLetterTables rows;
  private final List<AutoCloseable> resources = new ArrayList<>();
  final DeadLetterStore store;
  final WaitingRowStore waiting;
  private final ByteArrayOutputStream metricLines = new ByteArrayOutputStream();
  private final ByteArrayOutputStream logLines = new ByteArrayOutputStream();
  final DeadLetterReprocessorHandler handler;

  /** Over JDBC, sending events anywhere that exists. */
  ReprocessorHarness(TestDatabase db, OutboxTables tables, int batchSize) {
    this(db, tables, batchSize, null, anyDestination(), Ordering.NONE);
  }

  /**
   * @param executor the stores' executor; null for a JDBC connection of the harness's own
   * @param allowed where events may be sent instead of their own destination
   */
  ReprocessorHarness(
      TestDatabase db,
      OutboxTables tables,
      int batchSize,
      SqlExecutor executor,
      ReplayDestinations allowed,
      Ordering ordering) {
    this.db = db;
    this.tables = tables;
    this.rows = new DeadLetterTables(db, tables);
    SqlExecutor stores = executor;
    if (stores == null) {
      JdbcConnectionProvider connections = Stores.connections(db, tables);
      resources.add(connections);
      stores = JdbcExecutor.of(connections);
    }
    DeadLetterStore.Builder builder =
        DeadLetterStore.builder(stores).tables(tables).batchSize(batchSize);
    this.store = builder.build();
    this.waiting = builder.waitingRows(ordering);
    AwsEndpoint aws = TestEndpoints.aws();
    SnsClient sns = aws.sns();
    SqsClient sqs = aws.sqs();
    resources.add(sns);
    resources.add(sqs);
    PrintStream metricsOut = new PrintStream(metricLines, true, StandardCharsets.UTF_8);
    PrintStream logOut = new PrintStream(logLines, true, StandardCharsets.UTF_8);
    this.handler =
        new DeadLetterReprocessorHandler(
            store,
            waiting,
            builder.rewinds(),
            ordering,
            new DestinationCheck(allowed, sns, sqs),
            new EmfMetrics("LambdaOutbox", "outbox-dlq-reprocessor", metricsOut, Clock.systemUTC()),
            new JsonLogger(
                "outbox-dlq-reprocessor",
                DeadLetterReprocessorHandler.class,
                JsonLogger.Level.DEBUG,
                logOut,
                Clock.systemUTC()));
  }

  /** Invokes the handler and returns its JSON report; a refusal is thrown as it would be. */
  JsonNode invoke(String body) {
    return invoke(body, reprocessorContext());
  }

  JsonNode invoke(String body, FakeLambdaContext context) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      handler.handleRequest(
          new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), out, context);
      return JsonSupport.mapper().readTree(out.toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The EMF lines emitted so far, parsed. */
  List<JsonNode> metrics() {
    return lines(metricLines);
  }

  List<JsonNode> logs() {
    return lines(logLines);
  }

  @Override
  public void close() {
    Backend.close(resources);
  }

  /** A fresh invocation context for the reprocessor, five minutes to run. */
  static FakeLambdaContext reprocessorContext() {
    return new FakeLambdaContext("outbox-dlq-reprocessor", Duration.ofMinutes(5));
  }
}
