package dev.lambdaoutbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.BudgetedExecutor;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * What the store's contract tests share: private outbox tables in the database a subclass names,
 * emptied before each test; stores on the executor the subclass names (JDBC, the Data API, JDBC
 * with the Data API's result budget), each a new one as a new poller container would build it and
 * closed after the test; events appended over JDBC with the real {@link OutboxWriter} at fixed
 * times, as an application writes them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StoreTestBase {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final Duration LEASE = Duration.ofSeconds(30);

  OutboxTables tables;
  TestRows rows;
  private final List<AutoCloseable> resources = new ArrayList<>();

  /** The database the rows live in, reached over JDBC to write and inspect them. */
  abstract TestDatabase database();

  /**
   * A new executor for the store under test: its own connection, or its own Data API client. What
   * needs closing goes to {@link #closeAfterEach}.
   */
  abstract SqlExecutor newExecutor();

  @BeforeAll
  void createTables() {
    tables = database().createTables("store");
    rows = new TestRows(database(), tables);
  }

  @AfterAll
  void dropTables() {
    database().dropTables(tables);
  }

  @BeforeEach
  void clearTables() {
    rows.clear();
    rows.execute("DELETE FROM " + tables.deadLetterAudit());
  }

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
    resources.clear();
  }

  /** Closes {@code resource} after the test. */
  <T extends AutoCloseable> T closeAfterEach(T resource) {
    resources.add(resource);
    return resource;
  }

  OutboxStore store() {
    return OutboxStore.builder(newExecutor()).tables(tables).build();
  }

  // ---- the executors a subclass may name

  /** JDBC on a connection of its own. */
  SqlExecutor jdbcExecutor() {
    return JdbcExecutor.of(connections(ConnectionLimits.defaults()));
  }

  JdbcConnectionProvider connections(ConnectionLimits limits) {
    return closeAfterEach(Stores.connections(database(), tables, limits));
  }

  /** The RDS Data API: the test bed's emulator, which serves the test bed's PostgreSQL. */
  SqlExecutor dataApiExecutor() {
    DataApiEndpoint dataApi = TestEndpoints.dataApi();
    return dataApi.executor(closeAfterEach(dataApi.client())).build();
  }

  /**
   * JDBC with the Data API's result budget: the statements Aurora MySQL would run over the Data
   * API, since no emulator serves MySQL.
   */
  SqlExecutor budgetedJdbcExecutor() {
    return BudgetedExecutor.dataApi(jdbcExecutor());
  }

  // ---- rows

  /** Appends events in one transaction of the application's, created (and due) at {@code at}. */
  List<UUID> append(Instant at, OutboxEvent... events) {
    return append(
        OutboxWriter.builder().tables(tables).clock(Clock.fixed(at, ZoneOffset.UTC)), events);
  }

  /**
   * Appends events in one transaction of the application's, with the writer {@code writerBuilder}
   * builds.
   */
  List<UUID> append(OutboxWriter.Builder writerBuilder, OutboxEvent... events) {
    OutboxWriter writer = writerBuilder.build();
    try (Connection c = database().open()) {
      c.setAutoCommit(false);
      writer.appendAll(c, List.of(events));
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return List.of(events).stream().map(OutboxEvent::id).toList();
  }

  /** A payload of this many 4-byte characters (1.5 MiB) is over every limit: broker, response. */
  static final int HUGE_CHARS = 3 * 128 * 1024;

  /**
   * Writes, by hand SQL (the writer refuses it), a payload of {@link #HUGE_CHARS} 4-byte characters
   * into row {@code id} of {@code table}; returns the payload.
   */
  String writeHugePayload(String table, UUID id) {
    rows.execute(
        "UPDATE "
            + table
            + " SET payload = CONCAT('{\"blob\":\"', REPEAT('\uD83D\uDE00', "
            + HUGE_CHARS
            + "), '\"}') WHERE id = '"
            + id
            + "'");
    return "{\"blob\":\"" + "\uD83D\uDE00".repeat(HUGE_CHARS) + "\"}";
  }

  /**
   * Asserts that the first of {@code claimed}, whose stored payload {@link #writeHugePayload} wrote
   * ({@code payload}), came back with its stored size and a prefix of its payload, at most 256 KiB
   * where one result is bounded ({@code budget}), and the second with its own size.
   */
  static void assertClaimedWithStoredSizes(
      List<OutboxMessage> claimed, String payload, long budget) {
    OutboxMessage claimedHuge = claimed.get(0);
    assertThat(claimedHuge.payloadBytes()).isEqualTo(4L * HUGE_CHARS + 11);
    assertThat(payload).startsWith(claimedHuge.payload());
    if (budget != Long.MAX_VALUE) {
      assertThat(Utf8.length(claimedHuge.payload())).isLessThanOrEqualTo(256 * 1024);
    }
    assertThat(claimed.get(1).payloadBytes()).isEqualTo(Utf8.length(claimed.get(1).payload()));
  }
}
