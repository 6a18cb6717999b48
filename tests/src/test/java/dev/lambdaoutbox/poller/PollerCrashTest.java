package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.testing.ForwardingOutboxStore;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * The invocation dies (an {@link Error} thrown, as when Lambda kills it) at each point between
 * claiming and recording: nothing is lost, because claimed rows stay in the outbox until recorded,
 * and after the lease a new poller delivers them; any duplicate carries the same event id.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerCrashTest {
  private static final int ROWS = 30;

  private PollerTestBed bed;
  private String queue;
  private PollerConfig config;
  private List<UUID> ids;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("crash");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void writeRows() {
    bed.reset();
    queue = bed.queue("crash");
    config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue, "OUTBOX_LEASE_SECONDS", "60");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      events.add(event("order.created", "o-" + i).build());
    }
    ids = bed.append(events.toArray(OutboxEvent[]::new));
  }

  @Test
  void crashBetweenClaimAndPublish_afterTheLease_aNewPollerDeliversEverythingOnce() {
    MessagePublisher real = bed.publisher(config);
    MessagePublisher dying =
        new MessagePublisher() {
          @Override
          public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
            throw new SimulatedCrash("killed after claiming, before publishing");
          }
        };

    assertThatThrownBy(() -> bed.invoke(bed.handler(config, bed.store(config), dying)))
        .isInstanceOf(SimulatedCrash.class);
    assertThat(bed.count(bed.tables.messages())).isEqualTo(ROWS);

    assertThat(bed.invoke(bed.handler(config, bed.store(config), real)).claimed())
        .as("the rows are still leased to the dead invocation")
        .isZero();
    bed.clock.advance(Duration.ofSeconds(61));
    PollSummary after = bed.invoke(bed.handler(config, bed.store(config), real));

    assertThat(after.published()).isEqualTo(ROWS);
    Map<String, List<Message>> received = byEventId(bed.receive(queue, ROWS));
    assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(idStrings());
    assertThat(received.values()).allSatisfy(copies -> assertThat(copies).hasSize(1));
  }

  @Test
  void crashBetweenPublishAndRecording_afterTheLease_everythingArrives_duplicatesKeepTheirId() {
    OutboxStore real = bed.store(config);
    OutboxStore dying =
        new DelegatingStore(real) {
          @Override
          public CompletionReport complete(
              String owner, List<DeliveryOutcome> outcomes, Instant now) {
            throw new SimulatedCrash("killed after publishing, before recording");
          }
        };

    assertThatThrownBy(() -> bed.invoke(bed.handler(config, dying, bed.publisher(config))))
        .isInstanceOf(SimulatedCrash.class);
    assertThat(bed.count(bed.tables.messages())).isEqualTo(ROWS);
    bed.clock.advance(Duration.ofSeconds(61));
    PollSummary after = bed.invoke(bed.handler(config));

    assertThat(after.published()).isEqualTo(ROWS);
    assertThat(bed.count(bed.tables.messages())).isZero();
    Map<String, List<Message>> received = byEventId(bed.receive(queue, 2 * ROWS));
    assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(idStrings());
    assertThat(received.values())
        .allSatisfy(
            copies -> {
              assertThat(copies).hasSize(2);
              assertThat(copies.get(0).body()).isEqualTo(copies.get(1).body());
            });
  }

  @Test
  void crashInTheMiddleOfPublishing_afterTheLease_everythingArrives_duplicatesKeepTheirId() {
    AtomicInteger calls = new AtomicInteger();
    SqsClient dyingAfterTwoBatches =
        new SqsClient() {
          @Override
          public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
            if (calls.incrementAndGet() > 2) {
              throw new SimulatedCrash("killed after two of three batches");
            }
            return bed.sqs.sendMessageBatch(request);
          }

          @Override
          public String serviceName() {
            return bed.sqs.serviceName();
          }

          @Override
          public void close() {
            // The real client belongs to the test bed.
          }
        };
    PollerConfig oneAtATime =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION", queue,
            "OUTBOX_LEASE_SECONDS", "60",
            "OUTBOX_PUBLISH_CONCURRENCY", "1");

    assertThatThrownBy(
            () ->
                bed.invoke(
                    bed.handler(
                        oneAtATime,
                        bed.store(oneAtATime),
                        bed.publisher(oneAtATime, bed.sns, dyingAfterTwoBatches))))
        .isInstanceOf(SimulatedCrash.class);
    bed.clock.advance(Duration.ofSeconds(61));
    bed.invoke(bed.handler(oneAtATime));

    assertThat(bed.count(bed.tables.messages())).isZero();
    Map<String, List<Message>> received = byEventId(bed.receive(queue, ROWS + 20));
    assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(idStrings());
    assertThat(received.values().stream().mapToInt(List::size).sum()).isEqualTo(ROWS + 20);
    assertThat(received.values()).allSatisfy(copies -> assertThat(copies.size()).isBetween(1, 2));
  }

  private List<String> idStrings() {
    return ids.stream().map(UUID::toString).toList();
  }

  private static Map<String, List<Message>> byEventId(List<Message> messages) {
    Map<String, List<Message>> byId = new HashMap<>();
    messages.forEach(
        m -> byId.computeIfAbsent(attribute(m, "eventId"), k -> new ArrayList<>()).add(m));
    return byId;
  }

  /** What the runtime does to an invocation it kills, as far as the code can tell. */
  static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(String message) {
      super(message);
    }
  }

  /** The real store, for overriding one step. */
  private static class DelegatingStore extends ForwardingOutboxStore {
    DelegatingStore(OutboxStore real) {
      super(real);
    }
  }
}
