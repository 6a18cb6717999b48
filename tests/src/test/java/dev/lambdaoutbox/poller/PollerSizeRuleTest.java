package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The writer and the poller measure a message with one rule ({@link MessageSize}): what the writer
 * accepts, the poller measures to the byte the same after the row's round trip through the
 * database, and sends; the largest message the writer accepts arrives whole.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerSizeRuleTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("sizes");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void whatTheWriterAccepts_thePollerMeasuresByteForByte_andTheLargestArrivesWhole() {
    String queue = bed.queue("sizes");
    List<OutboxEvent> events = new ArrayList<>();
    events.add(event("order.created", "o-1").build());
    events.add(
        event("order.créé", "ö-2 😀")
            .payload("{\"name\":\"Zoë 😀 ☃\",\"n\":1.50}")
            .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            .header("tenant", "ünïcode ✓")
            .occurredAt(PollerTestBed.T0.minusNanos(123_456_789))
            .build());
    events.add(event("order.created", "o-3").occurredAt(PollerTestBed.T0.minusMillis(250)).build());
    OutboxEvent largest = largest(event("order.created", "o-max").header("tenant", "acme"));
    events.add(largest);
    bed.append(events.toArray(OutboxEvent[]::new));
    PollerConfig config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue);

    List<OutboxMessage> claimed =
        bed.store(config)
            .claim("measure", 10, bed.clock.instant(), Duration.ofSeconds(30))
            .messages();
    Map<UUID, OutboxMessage> rows =
        claimed.stream().collect(Collectors.toMap(OutboxMessage::id, Function.identity()));
    for (OutboxEvent e : events) {
      assertThat((long) OutboundMessage.of(rows.get(e.id()), queue).sizeBytes())
          .as(e.toString())
          .isEqualTo(e.messageSize());
    }
    assertThat(largest.messageSize()).isEqualTo(MessageSize.MAX_BYTES);

    bed.clock.advance(Duration.ofSeconds(31));
    PollSummary summary = bed.invoke(bed.handler(config));

    assertThat(summary.published()).isEqualTo(events.size());
    assertThat(summary.deadLettered()).isZero();
    List<Message> received = bed.receive(queue, events.size());
    assertThat(received)
        .filteredOn(m -> largest.id().toString().equals(attribute(m, "eventId")))
        .singleElement()
        .satisfies(m -> assertThat(m.body()).isEqualTo(largest.payload()));
  }

  /** {@code builder}'s event with the payload that makes its message exactly 256 KiB. */
  private static OutboxEvent largest(OutboxEvent.Builder builder) {
    // One time for both builds: its attribute takes 20, 24 or 27 characters.
    builder.occurredAt(Instant.now());
    long withoutPayload = builder.payload("\"\"").build().messageSize() - 2;
    return builder
        .payload("\"" + "x".repeat((int) (MessageSize.MAX_BYTES - withoutPayload - 2)) + "\"")
        .build();
  }
}
