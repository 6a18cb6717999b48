package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * FIFO topics and queues: one aggregate's events arrive in the order written, grouped by aggregate
 * id and de-duplicated by event id.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerFifoTest {
  private static final int AGGREGATES = 3;
  private static final int EVENTS_EACH = 15;

  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("fifo");
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
  void fifoTopicToFifoQueue_keepsOrderPerAggregate_andSetsGroupAndDedupIds() {
    String topic = bed.fifoTopic("orders");
    String queue = bed.fifoQueue("orders-sub");
    bed.subscribeRaw(topic, queue);
    Map<UUID, String> written = writeInterleaved();

    PollSummary summary = bed.invoke(bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", topic)));

    assertThat(summary.published()).isEqualTo(AGGREGATES * EVENTS_EACH);
    assertInOrderPerAggregate(bed.receive(queue, AGGREGATES * EVENTS_EACH), written);
  }

  @Test
  void fifoQueue_keepsOrderPerAggregate_andSetsGroupAndDedupIds() {
    String queue = bed.fifoQueue("direct");
    Map<UUID, String> written = writeInterleaved();

    PollSummary summary = bed.invoke(bed.handler(bed.config("OUTBOX_DEFAULT_DESTINATION", queue)));

    assertThat(summary.published()).isEqualTo(AGGREGATES * EVENTS_EACH);
    assertInOrderPerAggregate(bed.receive(queue, AGGREGATES * EVENTS_EACH), written);
  }

  /**
   * Writes the aggregates' events interleaved, one transaction each, a millisecond apart; returns
   * event id to aggregate id in the order written.
   */
  private Map<UUID, String> writeInterleaved() {
    Map<UUID, String> written = new LinkedHashMap<>();
    for (int n = 0; n < EVENTS_EACH; n++) {
      for (int a = 0; a < AGGREGATES; a++) {
        String aggregate = "agg-" + a;
        UUID id =
            bed.append(
                    event("order.changed", aggregate)
                        .payload("{\"aggregate\":\"" + aggregate + "\",\"n\":" + n + "}")
                        .build())
                .get(0);
        written.put(id, aggregate);
        bed.clock.advance(Duration.ofMillis(1));
      }
    }
    return written;
  }

  private static void assertInOrderPerAggregate(List<Message> received, Map<UUID, String> written) {
    assertThat(received).hasSize(written.size());
    Map<String, List<String>> receivedPerAggregate = new LinkedHashMap<>();
    for (Message m : received) {
      String eventId = attribute(m, "eventId");
      String aggregate = attribute(m, "aggregateId");
      assertThat(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))
          .isEqualTo(attribute(m, "aggregateType") + ":" + aggregate);
      assertThat(m.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID))
          .isEqualTo(eventId);
      receivedPerAggregate.computeIfAbsent(aggregate, k -> new ArrayList<>()).add(eventId);
    }
    Map<String, List<String>> writtenPerAggregate = new LinkedHashMap<>();
    written.forEach(
        (id, aggregate) ->
            writtenPerAggregate
                .computeIfAbsent(aggregate, k -> new ArrayList<>())
                .add(id.toString()));
    assertThat(receivedPerAggregate).isEqualTo(writtenPerAggregate);
  }
}
