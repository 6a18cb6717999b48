package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/**
 * Rows that can never be published are dead-lettered at once, with why; the rest flow. (A
 * destination that refuses every message is not the rows' fault: see {@link
 * PollerMisconfiguredDestinationTest}.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerDeadLetterTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("deadletter");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @Test
  void eventNothingRoutes_isDeadLetteredAtOnce_withTheErrorCodeAndReason_andTheRestFlow() {
    String queue = bed.queue("fine");
    UUID lost = bed.append(event("audit.recorded", "o-1").build()).get(0);
    UUID fine = bed.append(event("order.created", "o-2").build()).get(0);

    PollSummary summary =
        bed.invoke(
            bed.handler(
                bed.config(
                    "OUTBOX_ROUTES",
                    "{\"order.*\":\"" + queue + "\"}",
                    "OUTBOX_MAX_RETRIES",
                    "10")));

    assertThat(summary.deadLettered()).isEqualTo(1);
    assertThat(summary.published()).isEqualTo(1);
    assertThat(summary.retried() + summary.deferred()).isZero();
    assertThat(summary.stoppedBecause()).isEqualTo("drained");
    Map<String, Object> dead = bed.deadLetter(lost);
    assertThat(dead.get("error_code")).isEqualTo("NO_DESTINATION");
    assertThat((String) dead.get("error_reason"))
        .contains("audit.recorded")
        .contains("OUTBOX_DEFAULT_DESTINATION");
    assertThat(dead.get("attempts")).isEqualTo(1);
    assertThat(bed.receive(queue, 1))
        .singleElement()
        .satisfies(m -> assertThat(attribute(m, "eventId")).isEqualTo(fine.toString()));
    assertThat(bed.logs("ERROR"))
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.get("message").asText()).isEqualTo("event dead-lettered");
              assertThat(l.get("eventId").asText()).isEqualTo(lost.toString());
              assertThat(l.get("errorCode").asText()).isEqualTo("NO_DESTINATION");
              assertThat(l.get("attempts").asInt()).isEqualTo(1);
            });
    assertThat(bed.metricLines().get(0).get("DeadLettered").asInt()).isEqualTo(1);
  }

  /**
   * The writer refuses such an event; a row made larger by SQL, or by an older writer, is still
   * refused by the poller before sending, by the same rule.
   */
  @Test
  void messageOverTheLimit_writtenBySql_isDeadLetteredWithAReason_andTheRestFlow() {
    String queue = bed.queue("sizes");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      events.add(event("order.created", "o-" + i).build());
    }
    bed.append(events.toArray(OutboxEvent[]::new));
    OutboxEvent huge = events.remove(2);
    bed.execute(
        "UPDATE "
            + bed.tables.messages()
            + " SET payload = '{\"blob\":\""
            + "x".repeat(300 * 1024)
            + "\"}' WHERE id = '"
            + huge.id()
            + "'");

    PollSummary summary = bed.invoke(bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", queue)));

    assertThat(summary.published()).isEqualTo(5);
    assertThat(summary.deadLettered()).isEqualTo(1);
    Map<String, Object> dead = bed.deadLetter(huge.id());
    assertThat(dead.get("error_code")).isEqualTo("MESSAGE_TOO_LARGE");
    assertThat((String) dead.get("error_reason")).contains("262144");
    assertThat(bed.receive(queue, 5))
        .extracting(m -> attribute(m, "eventId"))
        .doesNotContain(huge.id().toString())
        .hasSize(5);
  }

  /**
   * A payload over every limit, written by hand SQL: 1.5 MiB of 4-byte characters, more than one
   * Data API response holds. The claim returns it cut with its stored size; the poller dead-letters
   * it as too large, its whole payload copied database-side; the rest flow.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"postgresql", "mariadb", "data-api"})
  void messageOverEveryLimit_writtenBySql_isDeadLetteredAsTooLarge_andTheRestFlow(String store)
      throws Exception {
    try (PollerTestBed on =
        new PollerTestBed(
            "huge", store.equals("mariadb") ? TestEndpoints.mysql() : TestEndpoints.postgres())) {
      String queue = on.queue("huge");
      List<OutboxEvent> events = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        events.add(event("order.created", "o-" + i).build());
      }
      on.append(events.toArray(OutboxEvent[]::new));
      OutboxEvent huge = events.remove(1);
      int chars = 3 * 128 * 1024;
      on.execute(
          "UPDATE "
              + on.tables.messages()
              + " SET payload = CONCAT('{\"blob\":\"', REPEAT('\uD83D\uDE00', "
              + chars
              + "), '\"}') WHERE id = '"
              + huge.id()
              + "'");
      PollerConfig config = on.config("OUTBOX_DEFAULT_DESTINATION", queue);
      PollSummary summary;
      if (store.equals("data-api")) {
        try (RdsDataClient client = TestEndpoints.dataApi().client()) {
          OutboxStore dataApi =
              OutboxStore.builder(TestEndpoints.dataApi().executor(client).build())
                  .tables(on.tables)
                  .completionsOnSecondConnection()
                  .build();
          summary = on.invoke(on.handler(config, dataApi, on.publisher(config)));
        }
      } else {
        summary = on.invoke(on.handler(config));
      }

      assertThat(summary.deadLettered()).as("%s %s", summary, on.logs("WARN")).isEqualTo(1);
      assertThat(summary.published()).isEqualTo(3);
      Map<String, Object> dead = on.deadLetter(huge.id());
      assertThat(dead.get("error_code")).isEqualTo("MESSAGE_TOO_LARGE");
      long stored = 4L * chars + 11;
      assertThat((String) dead.get("error_reason"))
          .contains("262144")
          .contains("the message has 15");
      assertThat(((String) dead.get("payload")).length()).isEqualTo(2 * chars + 11);
      assertThat(
              Long.parseLong(((String) dead.get("error_reason")).replaceAll("\\D*(\\d+).*", "$1")))
          .as("the reason's size is the stored payload's")
          .isEqualTo(stored);
      assertThat(on.receive(queue, 3))
          .extracting(m -> attribute(m, "eventId"))
          .doesNotContain(huge.id().toString())
          .hasSize(3);
    }
  }
}
