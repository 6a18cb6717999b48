package dev.lambdaoutbox.reprocessor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.internal.JsonSupport;
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

/**
 * The reprocessor handler as Lambda would run it, on one set of test tables, with its metrics and
 * logs captured.
 */
final class ReprocessorHarness implements AutoCloseable {
  final TestDatabase db;
  final OutboxTables tables;
  final DeadLetterTables rows;
  private final JdbcConnectionProvider connections;
  final DeadLetterStore store;
  private final ByteArrayOutputStream metricLines = new ByteArrayOutputStream();
  private final ByteArrayOutputStream logLines = new ByteArrayOutputStream();
  final DeadLetterReprocessorHandler handler;

  ReprocessorHarness(TestDatabase db, OutboxTables tables, int batchSize) {
    this.db = db;
    this.tables = tables;
    this.rows = new DeadLetterTables(db, tables);
    this.connections = Stores.connections(db, tables);
    this.store =
        DeadLetterStore.builder(JdbcExecutor.of(connections))
            .tables(tables)
            .batchSize(batchSize)
            .build();
    PrintStream metricsOut = new PrintStream(metricLines, true, StandardCharsets.UTF_8);
    PrintStream logOut = new PrintStream(logLines, true, StandardCharsets.UTF_8);
    this.handler =
        new DeadLetterReprocessorHandler(
            store,
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

  private static List<JsonNode> lines(ByteArrayOutputStream captured) {
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

  @Override
  public void close() {
    connections.close();
  }

  /** A fresh invocation context for the reprocessor, five minutes to run. */
  static FakeLambdaContext reprocessorContext() {
    return new FakeLambdaContext("outbox-dlq-reprocessor", Duration.ofMinutes(5));
  }
}
