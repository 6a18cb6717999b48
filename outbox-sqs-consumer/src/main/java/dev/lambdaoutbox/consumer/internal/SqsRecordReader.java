package dev.lambdaoutbox.consumer.internal;

import com.amazonaws.services.lambda.runtime.events.SQSEvent.MessageAttribute;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.SQSMessage;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.consumer.InboundEvent;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Reads an outbox event from an SQS record, in either shape it arrives in:
 *
 * <ul>
 *   <li><b>raw delivery</b> (published to SQS directly, or through SNS with {@code
 *       RawMessageDelivery}): the message attributes carry {@code eventId} and the others, the body
 *       is the payload;
 *   <li><b>SNS notification</b> (SNS to SQS without raw delivery): the body is SNS's JSON envelope,
 *       whose {@code MessageAttributes} carry them and whose {@code Message} is the payload.
 * </ul>
 *
 * <p>In either shape the payload may be a claim check ({@link PayloadPointer}): the body points to
 * an S3 object that holds the payload, which is read and handed over in its place. And in either,
 * the body (or the object) may be a structured CloudEvent for the event ({@link CloudEventBody}),
 * whose data is handed over as the payload.
 */
public final class SqsRecordReader {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SqsRecordReader() {}

  /**
   * The event in {@code record}.
   *
   * @throws UnreadableRecordException naming what is missing or malformed
   */
  public static InboundEvent read(SQSMessage record) {
    return read(record, S3PayloadReader.none());
  }

  /**
   * The event in {@code record}, its payload read from S3 with {@code payloads} when the body is a
   * claim check ({@link PayloadPointer}), raw or inside the SNS notification alike.
   *
   * @throws UnreadableRecordException naming what is missing or malformed
   * @throws PayloadUnavailableException when a claim check's object cannot be read now
   */
  public static InboundEvent read(SQSMessage record, S3PayloadReader payloads) {
    Map<String, String> attributes = rawAttributes(record);
    String payload;
    if (attributes.containsKey(OutboxMessageAttributes.EVENT_ID)) {
      payload = record.getBody();
      if (payload == null) {
        throw new UnreadableRecordException("body: is missing");
      }
    } else {
      JsonNode envelope = snsEnvelope(record.getBody());
      if (envelope == null) {
        throw new UnreadableRecordException(
            "eventId: the record has no eventId message attribute, and its body is not an SNS"
                + " notification that could carry one; outbox events carry it as published by the"
                + " outbox poller");
      }
      attributes = envelopeAttributes(envelope);
      if (!attributes.containsKey(OutboxMessageAttributes.EVENT_ID)) {
        throw new UnreadableRecordException(
            "eventId: the SNS notification (MessageId "
                + envelope.path("MessageId").asText("?")
                + ") has no eventId message attribute; outbox events carry it as published by the"
                + " outbox poller");
      }
      payload = envelope.get("Message").asText();
    }
    Map<String, String> headers = new LinkedHashMap<>(attributes);
    OutboxMessageAttributes.RESERVED.forEach(headers::remove);
    PayloadPointer.SIZE_ATTRIBUTES.forEach(headers::remove);
    UUID eventId = eventId(attributes.get(OutboxMessageAttributes.EVENT_ID));
    String eventType = required(attributes, OutboxMessageAttributes.EVENT_TYPE);
    String aggregateType = required(attributes, OutboxMessageAttributes.AGGREGATE_TYPE);
    String aggregateId = required(attributes, OutboxMessageAttributes.AGGREGATE_ID);
    Instant occurredAt = occurredAt(required(attributes, OutboxMessageAttributes.OCCURRED_AT));
    Optional<PayloadPointer> pointer = PayloadPointer.of(attributes, payload);
    if (pointer.isPresent()) {
      payload = payloads.read(pointer.get());
    }
    payload = CloudEventBody.payload(payload, eventId);
    return new InboundEvent(
        eventId,
        eventType,
        aggregateType,
        aggregateId,
        occurredAt,
        headers,
        payload,
        String.valueOf(record.getMessageId()));
  }

  /** The record's String (and Number) message attributes, as text. */
  private static Map<String, String> rawAttributes(SQSMessage record) {
    Map<String, String> attributes = new LinkedHashMap<>();
    Map<String, MessageAttribute> raw = record.getMessageAttributes();
    if (raw != null) {
      raw.forEach(
          (name, value) -> {
            if (value != null && value.getStringValue() != null) {
              attributes.put(name, value.getStringValue());
            }
          });
    }
    return attributes;
  }

  /** The body as an SNS notification envelope, or null when it is not one. */
  private static JsonNode snsEnvelope(String body) {
    if (body == null || body.isBlank() || body.strip().charAt(0) != '{') {
      return null;
    }
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      return null;
    }
    boolean notification =
        node.isObject()
            && "Notification".equals(node.path("Type").asText(null))
            && node.path("Message").isTextual();
    return notification ? node : null;
  }

  /** {@code MessageAttributes} of an SNS envelope: name to {@code {"Type": ..., "Value": ...}}. */
  private static Map<String, String> envelopeAttributes(JsonNode envelope) {
    Map<String, String> attributes = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> a : envelope.path("MessageAttributes").properties()) {
      String type = a.getValue().path("Type").asText("");
      JsonNode value = a.getValue().path("Value");
      if ((type.equals("String") || type.startsWith("Number")) && value.isTextual()) {
        attributes.put(a.getKey(), value.asText());
      }
    }
    return attributes;
  }

  private static String required(Map<String, String> attributes, String name) {
    String value = attributes.get(name);
    if (value == null || value.isBlank()) {
      throw new UnreadableRecordException(
          name + ": the message attribute is missing; outbox events carry it");
    }
    return value;
  }

  private static UUID eventId(String text) {
    try {
      return UUID.fromString(text.strip());
    } catch (IllegalArgumentException e) {
      throw new UnreadableRecordException("eventId: '" + text + "' is not a UUID", e);
    }
  }

  private static Instant occurredAt(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new UnreadableRecordException(
          "occurredAt: '" + text + "' is not an ISO-8601 instant", e);
    }
  }
}
