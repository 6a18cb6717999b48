package dev.lambdaoutbox.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.SQSEvent.MessageAttribute;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.SQSMessage;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.consumer.InboundEvent;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqsRecordReaderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final UUID EVENT_ID = UUID.fromString("0195f3a2-6c1e-7d41-9a3b-2f1c0d9e8b7a");

  /** A payload whose spacing, key order, escapes and non-ASCII text must come through untouched. */
  private static final String PAYLOAD =
      "  {\"z\" : 1.50,\n\t\"a\":[ 1e3, null ],  \"caf\u00e9\": \"\uD83D\uDE00\", \"q\":\"\\\"\" }\n";

  private static Map<String, String> outboxAttributes() {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("eventId", EVENT_ID.toString());
    a.put("eventType", "reservation.created");
    a.put("aggregateType", "reservation");
    a.put("aggregateId", "r-42");
    a.put("occurredAt", "2026-03-01T09:59:59.123456Z");
    a.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    return a;
  }

  @Test
  void read_rawDelivery_takesAttributesAndBodyAsPublished() {
    InboundEvent event = SqsRecordReader.read(raw(outboxAttributes(), PAYLOAD));

    assertThat(event.eventId()).isEqualTo(EVENT_ID);
    assertThat(event.eventType()).isEqualTo("reservation.created");
    assertThat(event.aggregateType()).isEqualTo("reservation");
    assertThat(event.aggregateId()).isEqualTo("r-42");
    assertThat(event.occurredAt()).isEqualTo(Instant.parse("2026-03-01T09:59:59.123456Z"));
    assertThat(event.headers())
        .containsExactly(
            Map.entry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    assertThat(event.payload()).isEqualTo(PAYLOAD);
    assertThat(event.sqsMessageId()).isEqualTo("sqs-1");
  }

  @Test
  void read_snsEnvelope_takesTheEnvelopesAttributesAndMessage() throws Exception {
    SQSMessage record = raw(Map.of(), envelope(outboxAttributes(), PAYLOAD));

    InboundEvent event = SqsRecordReader.read(record);

    assertThat(event.eventId()).isEqualTo(EVENT_ID);
    assertThat(event.eventType()).isEqualTo("reservation.created");
    assertThat(event.aggregateId()).isEqualTo("r-42");
    assertThat(event.occurredAt()).isEqualTo(Instant.parse("2026-03-01T09:59:59.123456Z"));
    assertThat(event.headers()).containsOnlyKeys("traceparent");
    assertThat(event.payload()).isEqualTo(PAYLOAD);
  }

  @Test
  void read_snsEnvelope_withNullMessageAttributesOnTheRecord_isRead() throws Exception {
    SQSMessage record = raw(Map.of(), envelope(outboxAttributes(), "{}"));
    record.setMessageAttributes(null);

    assertThat(SqsRecordReader.read(record).eventId()).isEqualTo(EVENT_ID);
  }

  @Test
  void read_rawDeliveryWithoutHeaders_hasEmptyHeaders() {
    Map<String, String> attributes = outboxAttributes();
    attributes.remove("traceparent");

    assertThat(SqsRecordReader.read(raw(attributes, "{}")).headers()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"{\"orderId\":1}", "not json", "", "[1,2]", "{\"Type\":\"Notification\"}"})
  void read_withoutEventIdAttributeOrSnsEnvelope_failsNamingEventId(String body) {
    assertThatThrownBy(() -> SqsRecordReader.read(raw(Map.of("eventType", "x"), body)))
        .isInstanceOf(UnreadableRecordException.class)
        .hasMessageStartingWith("eventId: ")
        .hasMessageContaining("not an SNS notification");
  }

  @Test
  void read_snsEnvelopeWithoutEventId_failsNamingEventIdAndTheNotification() throws Exception {
    Map<String, String> attributes = outboxAttributes();
    attributes.remove("eventId");

    assertThatThrownBy(() -> SqsRecordReader.read(raw(Map.of(), envelope(attributes, "{}"))))
        .isInstanceOf(UnreadableRecordException.class)
        .hasMessageStartingWith("eventId: the SNS notification (MessageId sns-1)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"eventType", "aggregateType", "aggregateId", "occurredAt"})
  void read_withoutAnotherOutboxAttribute_failsNamingIt(String name) {
    Map<String, String> attributes = outboxAttributes();
    attributes.remove(name);

    assertThatThrownBy(() -> SqsRecordReader.read(raw(attributes, "{}")))
        .isInstanceOf(UnreadableRecordException.class)
        .hasMessageStartingWith(name + ": ");
  }

  @Test
  void read_withMalformedEventIdOrTime_failsNamingTheAttributeAndValue() {
    Map<String, String> badId = outboxAttributes();
    badId.put("eventId", "order-1");
    Map<String, String> badTime = outboxAttributes();
    badTime.put("occurredAt", "yesterday");

    assertThatThrownBy(() -> SqsRecordReader.read(raw(badId, "{}")))
        .hasMessage("eventId: 'order-1' is not a UUID");
    assertThatThrownBy(() -> SqsRecordReader.read(raw(badTime, "{}")))
        .hasMessage("occurredAt: 'yesterday' is not an ISO-8601 instant");
  }

  @Test
  void payload_readsAsTypeIgnoringUnknownFields_andNamesTheTypeWhenItCannot() {
    InboundEvent event =
        SqsRecordReader.read(raw(outboxAttributes(), "{\"id\":\"r-42\",\"seats\":2,\"new\":1}"));

    assertThat(event.payload(Reservation.class)).isEqualTo(new Reservation("r-42", 2));
    assertThatThrownBy(() -> event.payload(Integer.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payload: event " + EVENT_ID)
        .hasMessageContaining("java.lang.Integer");
  }

  record Reservation(String id, int seats) {}

  static SQSMessage raw(Map<String, String> attributes, String body) {
    SQSMessage m = new SQSMessage();
    m.setMessageId("sqs-1");
    m.setBody(body);
    m.setEventSource("aws:sqs");
    m.setEventSourceArn("arn:aws:sqs:us-east-1:123456789012:shop");
    Map<String, MessageAttribute> messageAttributes = new LinkedHashMap<>();
    attributes.forEach(
        (name, value) -> {
          MessageAttribute a = new MessageAttribute();
          a.setDataType("String");
          a.setStringValue(value);
          messageAttributes.put(name, a);
        });
    m.setMessageAttributes(messageAttributes);
    return m;
  }

  /** The body SNS gives an SQS subscriber without raw message delivery. */
  static String envelope(Map<String, String> attributes, String message) throws Exception {
    ObjectNode n = JSON.createObjectNode();
    n.put("Type", "Notification");
    n.put("MessageId", "sns-1");
    n.put("TopicArn", "arn:aws:sns:us-east-1:123456789012:reservations");
    n.put("Message", message);
    n.put("Timestamp", "2026-03-01T10:00:00.000Z");
    n.put("SignatureVersion", "1");
    n.put("Signature", "EXAMPLE");
    n.put("SigningCertURL", "https://sns.us-east-1.amazonaws.com/cert.pem");
    n.put("UnsubscribeURL", "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe");
    ObjectNode attrs = n.putObject("MessageAttributes");
    attributes.forEach(
        (name, value) -> attrs.putObject(name).put("Type", "String").put("Value", value));
    return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n);
  }
}
