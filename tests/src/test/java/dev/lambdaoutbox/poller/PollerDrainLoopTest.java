package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * How long an invocation runs: it drains a backlog in one go, keeps polling when asked to, and
 * always stops before the Lambda timeout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerDrainLoopTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("drain");
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
  void backlogLargerThanABatch_isDrainedInOneInvocation_claimingAgainAfterEachFullBatch() {
    String queue = bed.queue("backlog");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      events.add(event("order.created", "o-" + i).build());
    }
    bed.append(events.toArray(OutboxEvent[]::new));

    PollSummary summary =
        bed.invoke(
            bed.handler(
                bed.config("OUTBOX_DEFAULT_DESTINATION", queue, "OUTBOX_BATCH_SIZE", "100")));

    assertThat(summary.claimed()).isEqualTo(250);
    assertThat(summary.published()).isEqualTo(250);
    assertThat(summary.rounds())
        .as("three claims, and one more: the short one ran beside a recording (see Pipeline)")
        .isEqualTo(4);
    assertThat(summary.stoppedBecause()).isEqualTo("drained");
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  @Test
  void withAPollInterval_anEventCommittedMidInvocationIsPublishedAtOnce_andItStopsBeforeTheTimeout()
      throws Exception {
    String queue = bed.queue("polling");
    PollerHandler handler =
        bed.handler(
            bed.config(
                "OUTBOX_DEFAULT_DESTINATION", queue,
                "OUTBOX_POLL_INTERVAL_MS", "200",
                "OUTBOX_PUBLISH_TIMEOUT_MS", "1000",
                "OUTBOX_SAFETY_MARGIN_MS", "1000",
                "OUTBOX_LEASE_SECONDS", "10"));
    Duration timeout = Duration.ofSeconds(6);

    long started = System.nanoTime();
    CompletableFuture<PollSummary> invocation =
        CompletableFuture.supplyAsync(() -> bed.invoke(handler, timeout));
    Thread.sleep(1_500);
    UUID late = bed.append(event("order.created", "late").build()).get(0);
    List<String> received =
        bed.receive(queue, 1).stream().map(m -> attribute(m, "eventId")).toList();
    boolean stillRunningWhenReceived = !invocation.isDone();
    PollSummary summary = invocation.get(10, TimeUnit.SECONDS);
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertThat(received).containsExactly(late.toString());
    assertThat(stillRunningWhenReceived).isTrue();
    assertThat(summary.published()).isEqualTo(1);
    assertThat(summary.rounds()).isGreaterThan(5);
    assertThat(summary.stoppedBecause()).isEqualTo("time");
    assertThat(tookMs).isLessThan(timeout.toMillis());
  }

  @Test
  void tooLittleTimeLeft_claimsNothing_andWarns() {
    bed.append(event("order.created", "o-1").build());

    PollSummary summary =
        bed.invoke(
            bed.handler(
                bed.config(
                    "OUTBOX_DEFAULT_DESTINATION", bed.queue("short"),
                    "OUTBOX_PUBLISH_TIMEOUT_MS", "2000",
                    "OUTBOX_SAFETY_MARGIN_MS", "1000")),
            Duration.ofMillis(2_500));

    assertThat(summary.claimed()).isZero();
    assertThat(summary.rounds()).isZero();
    assertThat(summary.stoppedBecause()).isEqualTo("time");
    assertThat(bed.count(bed.tables.messages())).isEqualTo(1);
    List<JsonNode> warnings = bed.logs("WARN");
    assertThat(warnings)
        .singleElement()
        .satisfies(w -> assertThat(w.get("message").asText()).contains("function timeout"));
  }
}
