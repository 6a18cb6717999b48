package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.MessageSize;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MessageSizeTest {

  @Test
  void of_countsTheBodyAndEachAttributesNameTypeAndValue_inUtf8Bytes() {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("eventId", "x");
    attributes.put("zoë", "😀");

    long size = MessageSize.of("{\"a\":\"é\"}", attributes);

    long body = "{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8).length; // 10
    assertThat(size).isEqualTo(body + (7 + 6 + 1) + (4 + 6 + 4));
  }

  @Test
  void ofEvent_countsThePayloadTheFiveOutboxAttributesAndTheHeaders() {
    UUID id = UUID.fromString("0190f3c2-7b1a-7c3d-8e4f-a1b2c3d4e5f6");
    OutboxEvent event =
        OutboxEvent.builder()
            .id(id)
            .aggregateType("order")
            .aggregateId("o-42")
            .eventType("order.created")
            .payload("{\"id\":42}")
            .header("traceparent", "00-abc-01")
            .occurredAt(Instant.parse("2026-03-01T10:15:30.1234567Z"))
            .build();

    Map<String, String> attributes = event.messageAttributes();

    assertThat(attributes)
        .containsExactly(
            Map.entry("eventId", id.toString()),
            Map.entry("eventType", "order.created"),
            Map.entry("aggregateType", "order"),
            Map.entry("aggregateId", "o-42"),
            Map.entry("occurredAt", "2026-03-01T10:15:30.123456Z"),
            Map.entry("traceparent", "00-abc-01"));
    assertThat(event.messageSize()).isEqualTo(MessageSize.of("{\"id\":42}", attributes));
    assertThat(event.messageSize())
        .isEqualTo(
            9 // payload
                + (7 + 6 + 36)
                + (9 + 6 + 13)
                + (13 + 6 + 5)
                + (11 + 6 + 4)
                + (10 + 6 + 27)
                + (11 + 6 + 9));
  }
}
