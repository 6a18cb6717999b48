package dev.lambdaoutbox.poller.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.Rows;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OutboundMessageTest {
  private static final String FIFO_QUEUE =
      "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo";

  @Test
  void of_setsTheFiveOutboxAttributesThenTheHeaders() {
    UUID id = UUID.randomUUID();
    OutboxMessage row =
        Rows.row(
            id,
            "order",
            "o-42",
            "order.created",
            "{\"id\":42}",
            Map.of("traceparent", "00-abc-def-01"),
            null,
            0);

    OutboundMessage m = OutboundMessage.of(row, FIFO_QUEUE);

    assertThat(m.attributes())
        .containsExactly(
            Map.entry("eventId", id.toString()),
            Map.entry("eventType", "order.created"),
            Map.entry("aggregateType", "order"),
            Map.entry("aggregateId", "o-42"),
            Map.entry("occurredAt", "2026-03-01T10:15:30.123456Z"),
            Map.entry("traceparent", "00-abc-def-01"));
    assertThat(m.body()).isEqualTo("{\"id\":42}");
    assertThat(m.fifo()).isTrue();
    assertThat(m.messageGroupId()).isEqualTo("order:o-42");
    assertThat(m.deduplicationId()).isEqualTo(id.toString());
  }

  @Test
  void sizeBytes_countsUtf8BodyAndEveryAttributeNameTypeAndValue() {
    String payload = "{\"name\":\"Zoë 😀\"}";
    OutboundMessage m = OutboundMessage.of(Rows.row("order.created", payload), FIFO_QUEUE);

    int expected = payload.getBytes(StandardCharsets.UTF_8).length;
    for (Map.Entry<String, String> a : m.attributes().entrySet()) {
      expected +=
          a.getKey().getBytes(StandardCharsets.UTF_8).length
              + "String".length()
              + a.getValue().getBytes(StandardCharsets.UTF_8).length;
    }
    assertThat(m.sizeBytes()).isEqualTo(expected);
  }

  @Test
  void messageGroupId_ofAnAggregateIdFifoWouldRefuse_isAStableHash() {
    Map<String, String> none = new LinkedHashMap<>();
    OutboxMessage longId =
        Rows.row(UUID.randomUUID(), "order", "o".repeat(200), "t", "{}", none, null, 0);
    OutboxMessage spaced = Rows.row(UUID.randomUUID(), "order", "a b", "t", "{}", none, null, 0);

    String group = OutboundMessage.of(longId, FIFO_QUEUE).messageGroupId();

    assertThat(group).hasSize(64).matches("[0-9a-f]+");
    assertThat(OutboundMessage.of(longId, FIFO_QUEUE).messageGroupId()).isEqualTo(group);
    assertThat(OutboundMessage.of(spaced, FIFO_QUEUE).messageGroupId()).hasSize(64);
  }

  @Test
  void messageGroupId_isTheAggregateTypeAndId_soTwoTypesSharingAnIdAreTwoGroups() {
    Map<String, String> none = new LinkedHashMap<>();
    OutboxMessage order = Rows.row(UUID.randomUUID(), "order", "42", "t", "{}", none, null, 0);
    OutboxMessage payment = Rows.row(UUID.randomUUID(), "payment", "42", "t", "{}", none, null, 0);
    // 'order:' plus 122 characters is 128, FIFO's limit; one more and the key is hashed.
    OutboxMessage longest =
        Rows.row(UUID.randomUUID(), "order", "x".repeat(122), "t", "{}", none, null, 0);
    OutboxMessage tooLong =
        Rows.row(UUID.randomUUID(), "order", "x".repeat(123), "t", "{}", none, null, 0);

    assertThat(OutboundMessage.of(order, FIFO_QUEUE).messageGroupId()).isEqualTo("order:42");
    assertThat(OutboundMessage.of(payment, FIFO_QUEUE).messageGroupId()).isEqualTo("payment:42");
    assertThat(OutboundMessage.of(longest, FIFO_QUEUE).messageGroupId())
        .isEqualTo("order:" + "x".repeat(122));
    assertThat(OutboundMessage.of(tooLong, FIFO_QUEUE).messageGroupId())
        .hasSize(64)
        .matches("[0-9a-f]+");
  }

  @Test
  void withPointer_onAQueue_sendsTheLibrariesPointer_measuredWithItsSizeAttribute() {
    OutboundMessage m = OutboundMessage.of(Rows.row("order.created", "{\"id\":42}"), FIFO_QUEUE);
    PayloadPointer pointer = new PayloadPointer("orders-payloads", "p/" + m.id(), 9);

    OutboundMessage pointed = m.withPointer(pointer);

    assertThat(pointed.body()).isEqualTo(pointer.messageBody());
    assertThat(pointed.sizeBytes())
        .isEqualTo(
            m.sizeBytes()
                - "{\"id\":42}".length()
                + pointer.messageBody().length()
                + "ExtendedPayloadSize".length()
                + "Number".length()
                + 1);
    assertThat(pointed.tooLarge()).isFalse();
  }

  @Test
  void withPointer_onABus_putsThePointerObjectAsTheDetail() {
    String bus = "arn:aws:events:us-east-1:123456789012:event-bus/orders";
    OutboundMessage m = OutboundMessage.of(Rows.row("order.created", "{\"id\":42}"), bus);
    PayloadPointer pointer = new PayloadPointer("orders-payloads", "p/" + m.id(), 9);

    OutboundMessage pointed = m.withPointer(pointer);

    assertThat(pointed.body())
        .isEqualTo(pointer.eventDetail())
        .startsWith("{\"payloadS3Pointer\":{\"s3BucketName\":\"orders-payloads\"");
    assertThat(pointed.sizeBytes())
        .isEqualTo(
            "lambda-outbox".length()
                + "order.created".length()
                + pointer.eventDetail().length()
                + 14);
  }

  @Test
  void withPointerAndPayload_onABus_keepsTheMatchableFields_withinTheEntryLimit() {
    String bus = "arn:aws:events:us-east-1:123456789012:event-bus/orders";
    StringBuilder payload = new StringBuilder("{\"status\":\"PAID\"");
    for (int i = 0; i < 2_000; i++) {
      payload.append(",\"f").append(i).append("\":\"").append("v".repeat(20)).append('"');
    }
    String text = payload.append('}').toString();
    OutboundMessage m =
        OutboundMessage.of(Rows.row("order.created", "{}"), bus, "lambda-outbox", 16_384);
    PayloadPointer pointer = new PayloadPointer("orders-payloads", "p/" + m.id(), text.length());

    OutboundMessage pointed = m.withPointer(pointer, text);

    assertThat(pointed.body())
        .startsWith(pointer.eventDetail().substring(0, pointer.eventDetail().length() - 1) + ",")
        .contains("\"status\":\"PAID\"")
        .endsWith("}");
    assertThat(pointed.tooLarge()).isFalse();
    int detailFields = pointed.pointer().detailFields().length();
    assertThat(detailFields)
        .isLessThanOrEqualTo(OutboundMessage.MAX_DETAIL_FIELDS_BYTES)
        .isGreaterThan(OutboundMessage.MAX_DETAIL_FIELDS_BYTES - 40);
    assertThat(m.withPointer(pointer, text).sizeBytes()).isEqualTo(pointed.sizeBytes());
    OutboundMessage queued = OutboundMessage.of(Rows.row("order.created", "{}"), FIFO_QUEUE);
    assertThat(queued.withPointer(pointer, text).body())
        .as("SNS and SQS carry the libraries' pointer, nothing else")
        .isEqualTo(pointer.messageBody());
  }

  @Test
  void
      withPointer_ofAnEventWithFiveHeaders_isRefusedOnAQueue_whereTheSizeAttributeWouldBeAnEleventh() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int h = 0; h < 5; h++) {
      headers.put("h" + h, "v");
    }
    OutboxMessage row =
        Rows.row(
            UUID.randomUUID(), "order", "42", "order.created", "{\"id\":42}", headers, null, 0);
    PayloadPointer pointer = new PayloadPointer("orders-payloads", "p/" + row.id(), 9);

    OutboundMessage onQueue = OutboundMessage.of(row, FIFO_QUEUE).withPointer(pointer);
    assertThat(onQueue.tooLarge()).isTrue();
    assertThat(onQueue.tooLargeReason())
        .contains("ExtendedPayloadSize", "already has 10", "at most 10", "at most 4 headers");

    String bus = "arn:aws:events:us-east-1:123456789012:event-bus/orders";
    OutboundMessage onBus = OutboundMessage.of(row, bus).withPointer(pointer);
    assertThat(onBus.tooLarge()).as("a bus entry carries no message attributes").isFalse();

    headers.remove("h4");
    OutboundMessage fourHeaders =
        OutboundMessage.of(
                Rows.row(row.id(), "order", "42", "order.created", "{}", headers, null, 0),
                FIFO_QUEUE)
            .withPointer(pointer);
    assertThat(fourHeaders.tooLarge()).isFalse();
  }
}
