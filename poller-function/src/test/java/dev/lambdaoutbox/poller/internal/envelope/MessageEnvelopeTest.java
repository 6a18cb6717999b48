package dev.lambdaoutbox.poller.internal.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.poller.internal.Rows;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MessageEnvelopeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String QUEUE = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
  private static final String BUS = "arn:aws:events:eu-west-1:123456789012:event-bus/orders";

  @Test
  void cloudEvents_wrapTheRowsPayload_andMeasureTheBody() throws Exception {
    OutboxMessage row = Rows.row("order.created", "{\"id\": 42}");
    OutboxMessage sent = MessageEnvelope.cloudEvents("/orders").apply(row, QUEUE);

    JsonNode event = JSON.readTree(sent.payload());
    assertThat(event.path("data").toString()).isEqualTo("{\"id\":42}");
    assertThat(sent.payload()).contains("\"data\":{\"id\": 42}"); // as written
    assertThat(event.path("datacontenttype").asText()).isEqualTo("application/json");
    assertThat(event.path("time").asText()).isEqualTo(Rows.OCCURRED.toString());
    assertThat(sent.payloadBytes())
        .isEqualTo(sent.payload().getBytes(StandardCharsets.UTF_8).length);
    assertThat(sent.id()).isEqualTo(row.id());
  }

  @Test
  void aPayloadThatIsNotJson_travelsAsText() throws Exception {
    OutboxMessage row = Rows.row("order.created", "not json {");
    JsonNode event =
        JSON.readTree(MessageEnvelope.cloudEvents("/orders").apply(row, QUEUE).payload());
    assertThat(event.path("datacontenttype").asText()).isEqualTo("text/plain");
    assertThat(event.path("data").asText()).isEqualTo("not json {");
    assertThat(CloudEvent.isJson("{\"a\":1} trailing")).isFalse();
    assertThat(CloudEvent.isJson(" [1, 2] ")).isTrue();
  }

  @Test
  void theOutboxEnvelope_aBus_andACutPayload_leaveTheRowAsItIs() {
    OutboxMessage row = Rows.row("order.created", "{\"id\": 42}");
    assertThat(MessageEnvelope.OUTBOX.apply(row, QUEUE)).isSameAs(row);
    assertThat(MessageEnvelope.cloudEvents("/orders").apply(row, BUS)).isSameAs(row);
    OutboxMessage cut =
        new OutboxMessage(
            row.id(),
            row.aggregateType(),
            row.aggregateId(),
            row.eventType(),
            "{\"text\":\"xx",
            row.headers(),
            row.destination(),
            row.idempotencyKey(),
            row.occurredAt(),
            row.createdAt(),
            0,
            0,
            null,
            300_000);
    assertThat(MessageEnvelope.cloudEvents("/orders").apply(cut, QUEUE)).isSameAs(cut);
  }

  @Test
  void aSource_mustBeAUriReference() {
    assertThat(CloudEvent.sourceProblem("com.example.orders")).isNull();
    assertThat(CloudEvent.sourceProblem("/orders")).isNull();
    assertThat(CloudEvent.sourceProblem("https://example.com/orders")).isNull();
    assertThat(CloudEvent.sourceProblem("lambda outbox")).contains("not a URI reference");
  }
}
