package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The SnapStart priming hook, run as Lambda runs it before taking a snapshot at deploy time,
 * against the real database and SNS/SQS endpoint: it must not publish a message or claim a row
 * (both would be real, with no invocation behind them), and the poller must work as usual
 * afterwards. Registering the hook on this JVM, which has no CRaC, must be harmless.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerSnapStartPrimingTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("priming");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void priming_publishesNothing_claimsNothing_andThePollerDeliversAfterwards() {
    bed.reset();
    String queue = bed.queue("primed");
    OutboxWriter systemClockWriter = OutboxWriter.builder().tables(bed.tables).build();
    UUID id = bed.append(systemClockWriter, List.of(event("order.created", "o-1").build())).get(0);
    Map<String, Object> pending = bed.outboxRow(id);

    PollerWiring.Graph primed =
        PollerWiring.create(bed.config("OUTBOX_DEFAULT_DESTINATION", queue));
    try (OutboxPoller poller = primed.poller()) {
      int stubCalls = primed.priming().prime();

      assertThat(stubCalls).as("batch calls the in-process stub answered").isEqualTo(2);
      assertThat(bed.outboxRow(id)).as("the row, after priming").isEqualTo(pending);
      assertThat(bed.receive(queue, 0)).as("messages on the queue after priming").isEmpty();

      PollSummary summary = poller.run(() -> 30_000, "after-priming");

      assertThat(summary.published()).isEqualTo(1);
      List<Message> received = bed.receive(queue, 1);
      assertThat(received).hasSize(1);
      assertThat(attribute(received.get(0), "eventId")).isEqualTo(id.toString());
    }
  }
}
