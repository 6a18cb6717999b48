package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * A poller whose batch call outlasts its lease: another poller claims the rows meanwhile. Its
 * outcomes are reported per row as really applied, and logged and counted as such: the row it
 * wanted to dead-letter is not dead-lettered, and no ERROR line says it was; the rows it sent are
 * not deleted from under the poller now holding them (that one sends them again: at least once); a
 * WARN per row names it and the poller now holding it.
 *
 * <p>The slow call is the real SQS call with the test's clock moved past the lease inside it, and
 * another real store claiming the rows then; the one entry refused while the rest went through
 * comes from {@link EntryRejectingSqsClient} (see why there).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerLeaseLostTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("leaselost");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void batchCallOutlastingTheLease_outcomesNotAppliedAreReportedAsLeaseLost_notAsDone() {
    bed.reset();
    String queue = bed.queue("slow");
    PollerConfig config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue);
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      events.add(event("order.created", "o-" + i).build());
    }
    List<UUID> ids = bed.append(events.toArray(OutboxEvent[]::new));
    UUID refused = ids.get(3);
    OutboxStore other = bed.store(config);
    EntryRejectingSqsClient rejecting =
        new EntryRejectingSqsClient(
            bed.sqs, e -> e.id().equals(refused.toString()), "InvalidMessageContents", true);
    SqsClient slow =
        new SqsClient() {
          @Override
          public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
            bed.clock.advance(
                config.timing().lease().plusSeconds(1)); // the call outlasts the lease
            other.claim("poller:other", 100, bed.clock.instant(), config.timing().lease());
            return rejecting.sendMessageBatch(request);
          }

          @Override
          public String serviceName() {
            return rejecting.serviceName();
          }

          @Override
          public void close() {
            // The real client belongs to the test bed.
          }
        };

    PollSummary summary =
        bed.invoke(bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, slow)));

    assertThat(summary.published()).as("rows another poller holds are not settled").isZero();
    assertThat(summary.deadLettered()).isZero();
    assertThat(summary.leaseLost()).isEqualTo(10);
    assertThat(bed.count(bed.tables.deadLetters())).isZero();
    assertThat(bed.count(bed.tables.messages())).isEqualTo(10);
    for (UUID id : ids) {
      assertThat(bed.outboxRow(id).get("locked_by")).isEqualTo("poller:other");
    }
    assertThat(bed.logs("ERROR")).as("nothing was dead-lettered").isEmpty();
    List<JsonNode> warnings = bed.logs("WARN");
    assertThat(warnings).hasSize(10);
    assertThat(warnings)
        .allSatisfy(
            w -> {
              assertThat(w.get("message").asText()).startsWith("outcome not applied");
              assertThat(w.get("heldBy").asText()).isEqualTo("poller:other");
            });
    assertThat(warnings)
        .filteredOn(w -> w.get("eventId").asText().equals(refused.toString()))
        .singleElement()
        .satisfies(w -> assertThat(w.get("notApplied").asText()).contains("dead letter"));
    assertThat(warnings)
        .filteredOn(w -> w.get("notApplied").asText().equals("published"))
        .hasSize(9);
    JsonNode metrics = bed.metricLines().get(0);
    assertThat(metrics.get("LeaseLost").asInt()).isEqualTo(10);
    assertThat(metrics.get("DeadLettered").asInt()).isZero();
  }
}
