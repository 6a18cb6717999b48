package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The poller's public seam for benchmarks and local runs: an {@link EmbeddedPoller} runs the
 * poller's own loop over a real PostgreSQL outbox; without a broker every claimed row counts as
 * sent, and the listeners hear each publish call.
 */
class EmbeddedPollerTest {
  private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

  private final TestDatabase db = TestEndpoints.postgres();
  private OutboxTables tables;
  private JdbcConnectionProvider connections;

  @BeforeEach
  void createTables() {
    tables = db.createTables("embedded");
    connections = Stores.connections(db, tables);
  }

  @AfterEach
  void dropTables() {
    connections.close();
    db.dropTables(tables);
  }

  @Test
  void withoutBroker_publishesEveryDueRow_andTellsTheListenersOfEachCall() {
    List<UUID> written =
        CommittedEvents.write(db, tables, 3, 3).stream().map(UUID::fromString).toList();
    List<UUID> publishing = new CopyOnWriteArrayList<>();
    List<UUID> published = new CopyOnWriteArrayList<>();
    List<Long> took = new CopyOnWriteArrayList<>();
    PublishListener listener =
        new PublishListener() {
          @Override
          public void publishing(List<UUID> eventIds) {
            publishing.addAll(eventIds);
          }

          @Override
          public void published(List<UUID> eventIds, long nanos) {
            published.addAll(eventIds);
            took.add(nanos);
          }
        };

    PollSummary summary;
    try (EmbeddedPoller poller =
        telemetry(EmbeddedPoller.builder(config(), store()))
            .withoutBroker()
            .listener(listener)
            .build()) {
      summary = poller.run(() -> 60_000, "embedded-" + UUID.randomUUID());
    }

    assertThat(summary.claimed()).isEqualTo(3);
    assertThat(summary.published()).isEqualTo(3);
    assertThat(publishing).containsExactlyInAnyOrderElementsOf(written);
    assertThat(published).containsExactlyInAnyOrderElementsOf(written);
    assertThat(took).allSatisfy(nanos -> assertThat(nanos).isNotNegative());
  }

  @Test
  void build_withNowhereToPublish_namesWhatIsMissing() {
    EmbeddedPoller.Builder builder = telemetry(EmbeddedPoller.builder(config(), store()));

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("brokers: not set");
  }

  private PollerConfig config() {
    return PollerConfig.fromEnvironment(
        Map.of(
            "OUTBOX_JDBC_URL",
            db.jdbcUrl(),
            "OUTBOX_DB_USER",
            db.user(),
            "OUTBOX_DB_PASSWORD",
            db.password(),
            "OUTBOX_TABLE_PREFIX",
            tables.prefix(),
            PollerVariables.DEFAULT_DESTINATION.name(),
            "https://sqs.us-east-1.amazonaws.com/000000000000/embedded"));
  }

  private OutboxStore store() {
    OutboxStore.Builder store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables);
    if (config().publishing().pipeline()) {
      store.completionsOnSecondConnection();
    }
    return store.build();
  }

  private static EmbeddedPoller.Builder telemetry(EmbeddedPoller.Builder builder) {
    Clock clock = Clock.systemUTC();
    return builder
        .logger(
            new JsonLogger(
                "embedded", EmbeddedPollerTest.class, JsonLogger.Level.WARN, DISCARD, clock))
        .metrics(new EmfMetrics("Test", "embedded", DISCARD, clock));
  }
}
