package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

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
}
