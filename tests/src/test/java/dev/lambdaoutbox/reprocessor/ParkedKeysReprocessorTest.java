package dev.lambdaoutbox.reprocessor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.bench.Stores;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the operator sees of an aggregate parked behind a dead letter ({@code
 * OUTBOX_ORDERING=aggregate}), through the reprocessor handler: {@code list} shows it, a dry run
 * says what a replay or discard would release, and the discard releases it.
 */
class ParkedKeysReprocessorTest {
  private final TestDatabase db = TestEndpoints.mysql();
  private OutboxTables tables;
  private ReprocessorHarness reprocessor;
  private JdbcConnectionProvider connections;
  private OutboxStore store;

  @BeforeEach
  void start() {
    tables = db.createTables("parked");
    reprocessor = new ReprocessorHarness(db, tables, 100);
    connections = Stores.connections(db, tables);
    store =
        OutboxStore.builder(JdbcExecutor.of(connections))
            .tables(tables)
            .ordering(Ordering.AGGREGATE)
            .build();
  }

  @AfterEach
  void stop() {
    connections.close();
    reprocessor.close();
    db.dropTables(tables);
  }

  @Test
  void list_showsTheParkedAggregate_aDryRunSaysWhatWouldBeReleased_andADiscardReleasesIt()
      throws Exception {
    List<UUID> ids = append("r-1", 4);
    append("r-2", 1);
    Instant now = Instant.now();
    store.claim("poller:1", 10, now, Duration.ofMinutes(1));
    store.complete(
        "poller:1",
        List.of(new DeliveryOutcome.DeadLetter(ids.get(0), "InvalidParameterValue", "refused")),
        now);

    JsonNode list = reprocessor.invoke("{\"action\":\"list\",\"requestedBy\":\"alice\"}");
    JsonNode parked = list.path("parkedKeys");
    assertThat(parked.path("total").asInt()).isEqualTo(1);
    assertThat(parked.path("parkedEvents").asInt()).isEqualTo(3);
    JsonNode key = parked.path("keys").get(0);
    assertThat(key.path("aggregateType").asText()).isEqualTo("reservation");
    assertThat(key.path("aggregateId").asText()).isEqualTo("r-1");
    assertThat(key.path("deadLetterId").asText()).isEqualTo(ids.get(0).toString());
    assertThat(key.path("parkedEventsAtPark").asInt()).isEqualTo(3);
    assertThat(key.path("waitingEvents").asInt()).isEqualTo(3);

    JsonNode dryReplay =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"dryRun\":true,\"requestedBy\":\"alice\",\"ids\":[\""
                + ids.get(0)
                + "\"]}");
    assertThat(dryReplay.path("wouldRelease").get(0).path("aggregateId").asText()).isEqualTo("r-1");
    assertThat(dryReplay.path("counts").path("wouldReleaseEvents").asInt()).isEqualTo(3);
    assertThat(dryReplay.path("message").asText()).contains("would release 1 parked aggregate");

    JsonNode discard =
        reprocessor.invoke(
            "{\"action\":\"discard\",\"requestedBy\":\"alice\",\"reason\":\"obsolete\",\"ids\":[\""
                + ids.get(0)
                + "\"]}");
    assertThat(discard.path("released").get(0).path("waitingEvents").asInt()).isEqualTo(3);
    assertThat(discard.path("counts").path("releasedEvents").asInt()).isEqualTo(3);
    assertThat(reprocessor.invoke("{\"action\":\"list\"}").path("parkedKeys").path("total").asInt())
        .isZero();
    // Released: the next event of r-1 is its head now (r-2 was claimed already and is leased).
    assertThat(store.claim("poller:2", 10, Instant.now(), Duration.ofMinutes(1)).messages())
        .extracting(m -> m.id())
        .containsExactly(ids.get(1));
  }

  private List<UUID> append(String reservation, int events) throws Exception {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    List<UUID> ids = new ArrayList<>();
    try (Connection c = db.open()) {
      c.setAutoCommit(false);
      for (int n = 0; n < events; n++) {
        OutboxEvent e =
            OutboxEvent.builder()
                .aggregateType("reservation")
                .aggregateId(reservation)
                .eventType("reservation.changed")
                .payload("{\"n\":" + n + "}")
                .build();
        writer.append(c, e);
        c.commit();
        ids.add(e.id());
      }
    }
    return ids;
  }
}
