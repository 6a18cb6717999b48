package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A destination that refuses every message (a topic that does not exist, on the real endpoint)
 * routed beside a good one: it is parked like an outage, not dead-lettered row by row. The good
 * topic's rows flow in the same invocations; the missing topic's rows wait with their retry budgets
 * intact, one ERROR line names the destination and the fix, the metrics say one destination is down
 * and misconfigured and how many rows wait for it; once the topic is created (same name, same ARN)
 * and its probe comes, its rows flow too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerMisconfiguredDestinationTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("misconfigured");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void missingTopicBesideAGoodOne_goodRowsFlow_badRowsWaitIntact_andFlowOnceItIsCreated() {
    bed.reset();
    String goodTopic = bed.topic("good");
    String goodQueue = bed.queue("good-sub");
    bed.subscribeRaw(goodTopic, goodQueue);
    String missingName = bed.name("missing");
    String missingTopic = goodTopic.substring(0, goodTopic.lastIndexOf(':') + 1) + missingName;
    PollerHandler handler =
        bed.handler(
            bed.config(
                "OUTBOX_ROUTES",
                "{\"good.*\":\"" + goodTopic + "\",\"bad.*\":\"" + missingTopic + "\"}",
                "OUTBOX_MAX_RETRIES",
                "1"));
    List<UUID> good = new ArrayList<>();
    List<UUID> bad = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      good.addAll(bed.append(event("good.created", "g-" + i).build()));
      bad.addAll(bed.append(event("bad.created", "b-" + i).build()));
    }

    PollSummary first = bed.invoke(handler);

    assertThat(first.published()).isEqualTo(15);
    assertThat(first.deferred()).isEqualTo(15);
    assertThat(first.deadLettered() + first.retried()).isZero();
    assertThat(bed.receive(goodQueue, 15))
        .extracting(m -> attribute(m, "eventId"))
        .containsExactlyInAnyOrderElementsOf(good.stream().map(UUID::toString).toList());
    for (UUID id : bad) {
      Map<String, Object> row = bed.outboxRow(id);
      assertThat(row.get("retry_count")).isEqualTo(0);
      assertThat(row.get("last_error_code")).isEqualTo("NotFound");
    }
    List<JsonNode> errors = bed.logs("ERROR");
    assertThat(errors)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("message").asText()).startsWith("destination misconfigured");
              assertThat(e.get("destination").asText()).isEqualTo(missingTopic);
              assertThat(e.get("errorCode").asText()).isEqualTo("NotFound");
              assertThat(e.get("fix").asText())
                  .contains("create the topic " + missingTopic)
                  .contains("OUTBOX_ROUTES");
            });
    JsonNode metrics = bed.metricLines().get(0);
    assertThat(metrics.get("DestinationsDown").asInt()).isEqualTo(1);
    assertThat(metrics.get("DestinationsMisconfigured").asInt()).isEqualTo(1);
    assertThat(metrics.get("WaitingOnMisconfigured").asInt()).as("the rows waiting").isEqualTo(15);
    assertThat(metrics.get("DeadLettered").asInt()).isZero();
    assertThat(bed.count(bed.tables.deadLetters())).isZero();

    // Five more scheduled runs: new good rows flow; the bad ones are probed and keep waiting.
    for (int minute = 1; minute <= 5; minute++) {
      bed.clock.advance(Duration.ofMinutes(1));
      UUID more = bed.append(event("good.created", "g-late-" + minute).build()).get(0);
      PollSummary run = bed.invoke(handler);
      assertThat(run.published()).as("minute %d", minute).isEqualTo(1);
      assertThat(run.deadLettered() + run.retried()).isZero();
      assertThat(bed.outboxRow(more)).isNull();
    }
    assertThat(bed.logs("ERROR")).as("said once, not at every probe").hasSize(1);
    assertThat(bad).allSatisfy(id -> assertThat(bed.outboxRow(id).get("retry_count")).isEqualTo(0));
    assertThat(bed.rows(bed.tables.destinationHealth()))
        .singleElement()
        .satisfies(h -> assertThat((Integer) h.get("failed_probes")).isEqualTo(5));

    // The operator creates the topic the routes name; the next probe finds it.
    String created = bed.topicNamed(missingName);
    assertThat(created).isEqualTo(missingTopic);
    String badQueue = bed.queue("bad-sub");
    bed.subscribeRaw(created, badQueue);
    bed.clock.advance(Duration.ofMinutes(1));
    PollSummary fixed = bed.invoke(handler);

    assertThat(fixed.published()).isEqualTo(15);
    assertThat(bed.receive(badQueue, 15))
        .extracting(m -> attribute(m, "eventId"))
        .containsExactlyInAnyOrderElementsOf(bad.stream().map(UUID::toString).toList());
    assertThat(bed.count(bed.tables.messages())).isZero();
    assertThat(bed.count(bed.tables.deadLetters())).isZero();
    assertThat(bed.count(bed.tables.destinationHealth())).isZero();
    JsonNode after = bed.metricLines().get(bed.metricLines().size() - 1);
    assertThat(after.get("DestinationsDown").asInt()).isZero();
    assertThat(after.get("DestinationsMisconfigured").asInt()).isZero();
    assertThat(after.get("WaitingOnMisconfigured").asInt()).isZero();
  }

  @Test
  void aDestinationNoRowGoesToAnyMore_isForgotten_soItsAlarmClears() {
    bed.reset();
    String missingTopic = "arn:aws:sns:us-east-1:000000000000:" + bed.name("typo");
    OutboxEvent typo = event("order.created", "o-1").destination(missingTopic).build();
    bed.append(typo);
    PollerHandler handler = bed.handler(bed.config());
    assertThat(bed.invoke(handler).deferred()).isEqualTo(1);

    // The operator removes the row written with the wrong destination (say, by SQL).
    bed.execute("DELETE FROM " + bed.tables.messages());
    bed.clock.advance(Duration.ofMinutes(20));
    bed.clearOutput();
    bed.invoke(handler);

    assertThat(bed.count(bed.tables.destinationHealth())).isZero();
    assertThat(bed.metricLines().get(0).get("DestinationsDown").asInt()).isZero();
  }
}
