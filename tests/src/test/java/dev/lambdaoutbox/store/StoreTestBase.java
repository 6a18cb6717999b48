package dev.lambdaoutbox.store;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxTables;
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
 * emptied before each test; stores on connections of their own, closed after it; events appended
 * with the real {@link OutboxWriter} at fixed times.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StoreTestBase {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final Duration LEASE = Duration.ofSeconds(30);

  OutboxTables tables;
  TestRows rows;

  /** Providers the test opened; closed after each test. */
  final List<JdbcConnectionProvider> providers = new ArrayList<>();

  /** The database under test. */
  abstract TestDatabase database();

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
  void closeConnections() {
    providers.forEach(JdbcConnectionProvider::close);
    providers.clear();
  }

  OutboxStore store() {
    return OutboxStore.builder(JdbcExecutor.of(connections(ConnectionLimits.defaults())))
        .tables(tables)
        .build();
  }

  JdbcConnectionProvider connections(ConnectionLimits limits) {
    JdbcConnectionProvider p = Stores.connections(database(), tables, limits);
    providers.add(p);
    return p;
  }

  /** Appends events in one transaction of the application's, created (and due) at {@code at}. */
  List<UUID> append(Instant at, OutboxEvent... events) {
    OutboxWriter writer =
        OutboxWriter.builder().tables(tables).clock(Clock.fixed(at, ZoneOffset.UTC)).build();
    try (Connection c = database().open()) {
      c.setAutoCommit(false);
      writer.appendAll(c, List.of(events));
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return List.of(events).stream().map(OutboxEvent::id).toList();
  }
}
