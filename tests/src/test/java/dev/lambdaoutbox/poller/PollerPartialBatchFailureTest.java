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
 * One entry of a batch of ten fails while the call as a whole succeeds: the other nine are
 * delivered and marked published, and the one is retried, deferred or dead-lettered, never marked
 * published. The single-entry failure comes from {@link EntryRejectingSqsClient}; see why there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerPartialBatchFailureTest {
  private PollerTestBed bed;
  private String queue;
  private List<UUID> ids;
  private UUID bad;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("partial");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void writeTen() {
    bed.reset();
    queue = bed.queue("ten");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      events.add(event("order.created", "o-" + i).build());
    }
    ids = bed.append(events.toArray(OutboxEvent[]::new));
    bad = ids.get(4);
  }

  @Test
  void permanentEntryFailure_otherNineDelivered_badOneDeadLetteredWithTheBrokersCode() {
    PollSummary summary = invokeRejecting("InvalidMessageContents", true);

    assertThat(summary.claimed()).isEqualTo(10);
    assertThat(summary.published()).isEqualTo(9);
    assertThat(summary.deadLettered()).isEqualTo(1);
    assertNineDelivered();
    Map<String, Object> dead = bed.deadLetter(bad);
    assertThat(dead.get("error_code")).isEqualTo("InvalidMessageContents");
    assertThat((String) dead.get("error_reason")).contains("rejected by the test");
    assertThat(bed.outboxRow(bad)).isNull();
    assertThat(bed.logs("ERROR"))
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.get("eventId").asText()).isEqualTo(bad.toString());
              assertThat(l.get("attempts").asInt()).isEqualTo(1);
              assertThat(l.get("errorCode").asText()).isEqualTo("InvalidMessageContents");
            });
  }

  @Test
  void unknownEntryFailure_otherNineDelivered_badOneRetriedWithItsError() {
    PollSummary summary = invokeRejecting("SomethingNew", true);

    assertThat(summary.published()).isEqualTo(9);
    assertThat(summary.retried()).isEqualTo(1);
    assertNineDelivered();
    Map<String, Object> row = bed.outboxRow(bad);
    assertThat(row.get("status")).isEqualTo("PENDING");
    assertThat(row.get("retry_count")).isEqualTo(1);
    assertThat(row.get("last_error_code")).isEqualTo("SomethingNew");
    assertThat(bed.logs("ERROR")).isEmpty();
    assertThat(bed.logs("INFO"))
        .anySatisfy(l -> assertThat(l.path("eventId").asText()).isEqualTo(bad.toString()));
  }

  @Test
  void internalFailureOfOneEntry_otherNineDelivered_badOneDeferredWithoutSpendingARetry() {
    PollSummary summary = invokeRejecting("InternalError", false);

    assertThat(summary.published()).isEqualTo(9);
    assertThat(summary.retried()).isZero();
    assertThat(summary.deferred()).isEqualTo(1);
    assertNineDelivered();
    Map<String, Object> row = bed.outboxRow(bad);
    assertThat(row.get("status")).isEqualTo("PENDING");
    assertThat(row.get("retry_count")).isEqualTo(0);
    assertThat(row.get("last_error_code")).isEqualTo("InternalError");
    assertThat((String) row.get("last_error_reason")).contains("no retry spent");
    assertThat(bed.count(bed.tables.destinationHealth())).as("the destination is up").isZero();
    assertThat(bed.logs("ERROR")).isEmpty();
  }

  @Test
  void entryMissingFromBothLists_isRetried_neverMarkedPublished() {
    PollSummary summary = invokeRejecting(null, false);

    assertThat(summary.published()).isEqualTo(9);
    assertThat(summary.retried()).isEqualTo(1);
    assertNineDelivered();
    Map<String, Object> row = bed.outboxRow(bad);
    assertThat(row.get("retry_count")).isEqualTo(1);
    assertThat(row.get("last_error_code")).isEqualTo("MissingFromResponse");
  }

  private PollSummary invokeRejecting(String code, boolean senderFault) {
    PollerConfig config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue);
    EntryRejectingSqsClient sqs =
        new EntryRejectingSqsClient(
            bed.sqs, entry -> entry.id().equals(bad.toString()), code, senderFault);
    return bed.invoke(bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, sqs)));
  }

  private void assertNineDelivered() {
    List<String> expected = new ArrayList<>();
    ids.stream().filter(id -> !id.equals(bad)).forEach(id -> expected.add(id.toString()));
    assertThat(bed.receive(queue, 9))
        .extracting(m -> attribute(m, "eventId"))
        .containsExactlyInAnyOrderElementsOf(expected);
  }
}
