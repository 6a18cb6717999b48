package dev.lambdaoutbox.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * An outbox event as a consumer receives it: what the application wrote with {@code
 * OutboxWriter.append}, read back from an SQS record, with raw message delivery or inside an SNS
 * notification alike.
 *
 * @param eventId the event's id, the same on every delivery and every replay: what the inbox
 *     de-duplicates on
 * @param eventType e.g. {@code reservation.created}
 * @param aggregateType e.g. {@code reservation}
 * @param aggregateId the id of the aggregate the event is about
 * @param occurredAt when the business fact happened, as the application stated it
 * @param headers the event's headers (e.g. {@code traceparent}); empty when it had none
 * @param payload the payload JSON exactly as the application wrote it
 * @param sqsMessageId the SQS message id of this delivery (differs between deliveries)
 */
public record InboundEvent(
    UUID eventId,
    String eventType,
    String aggregateType,
    String aggregateId,
    Instant occurredAt,
    Map<String, String> headers,
    String payload,
    String sqsMessageId) {

  private static final ObjectMapper READER =
      new ObjectMapper()
          .findAndRegisterModules()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  public InboundEvent {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(occurredAt, "occurredAt");
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(sqsMessageId, "sqsMessageId");
  }

  /**
   * The payload read as {@code type} with a Jackson mapper that ignores properties {@code type}
   * does not know, so producers may add fields without breaking consumers.
   *
   * @throws IllegalArgumentException when the payload does not fit {@code type}
   */
  public <T> T payload(Class<T> type) {
    return payload(type, READER);
  }

  /** The payload read as {@code type} with the given mapper. */
  public <T> T payload(Class<T> type, ObjectMapper mapper) {
    try {
      return mapper.readValue(payload, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "payload: event "
              + eventId
              + " ("
              + eventType
              + ") could not be read as "
              + type.getName()
              + ": "
              + e.getOriginalMessage(),
          e);
    }
  }
}
