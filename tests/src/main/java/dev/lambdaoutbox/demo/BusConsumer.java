package dev.lambdaoutbox.demo;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse.BatchItemFailure;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.writer.Inbox;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The shop's consumer of the events an EventBridge rule forwards to its second queue. Each body is
 * EventBridge's event (its {@code detail-type} the event type, its {@code detail} the payload); an
 * entry on a bus carries no message attributes, so the outbox event id travels in the payload, as
 * docs/delivery.md tells producers to put it, and the consumer runs each event through the same
 * inbox under that id. A record that fails is reported, and SQS delivers it again.
 */
final class BusConsumer {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The shop's business logic for one event, in the inbox's transaction. */
  @FunctionalInterface
  interface Apply {
    void apply(Handle handle, UUID eventId, String reservationId, String eventType);
  }

  private final Jdbi jdbi;
  private final Inbox inbox;
  private final String consumerName;
  private final Apply apply;

  BusConsumer(Jdbi jdbi, Inbox inbox, String consumerName, Apply apply) {
    this.jdbi = jdbi;
    this.inbox = inbox;
    this.consumerName = consumerName;
    this.apply = apply;
  }

  /** The outbox event id inside an EventBridge event's detail, or null when there is none. */
  static UUID eventId(String body) {
    try {
      JsonNode id = JSON.readTree(body).path("detail").path("eventId");
      return id.isTextual() ? UUID.fromString(id.asText()) : null;
    } catch (Exception e) {
      return null; // not an EventBridge event of ours: handle() fails it
    }
  }

  SQSBatchResponse handle(SQSEvent event) {
    List<BatchItemFailure> failures = new ArrayList<>();
    for (SQSEvent.SQSMessage record : event.getRecords()) {
      try {
        JsonNode body = JSON.readTree(record.getBody());
        UUID eventId = UUID.fromString(body.path("detail").path("eventId").asText());
        String eventType = body.path("detail-type").asText();
        String reservationId = body.path("detail").path("reservationId").asText();
        jdbi.useTransaction(
            h ->
                inbox.processOnce(
                    h,
                    consumerName,
                    eventId.toString(),
                    () -> apply.apply(h, eventId, reservationId, eventType)));
      } catch (Exception e) {
        failures.add(new BatchItemFailure(record.getMessageId()));
      }
    }
    return new SQSBatchResponse(failures);
  }
}
