package dev.lambdaoutbox.poller.internal.envelope;

import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.poller.internal.publish.DestinationKind;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.util.Objects;

/**
 * What the body of an SNS or SQS message is ({@code OUTBOX_MESSAGE_ENVELOPE}): {@code outbox}, the
 * payload as written, the event's fields in message attributes; or {@code cloudevents}, a
 * structured {@link CloudEvent} whose data is the payload, the same message attributes beside it.
 * An EventBridge bus's entries keep EventBridge's own envelope either way.
 *
 * <p>The claim check stores the body a message would have carried, so with {@code cloudevents} the
 * S3 object is the CloudEvent, as a consumer reading the pointer expects the body it replaces.
 */
public final class MessageEnvelope {
  /** The payload as written. */
  public static final MessageEnvelope OUTBOX = new MessageEnvelope(null);

  /** The setting's values. */
  public static final String OUTBOX_NAME = "outbox";

  public static final String CLOUDEVENTS_NAME = "cloudevents";

  /** The CloudEvents' source; null for {@link #OUTBOX}. */
  private final String source;

  private MessageEnvelope(String source) {
    this.source = source;
  }

  /** Structured CloudEvents from {@code source} (a URI reference: {@link CloudEvent}). */
  public static MessageEnvelope cloudEvents(String source) {
    return new MessageEnvelope(Objects.requireNonNull(source, "source"));
  }

  /** The setting's value for this envelope. */
  public String name() {
    return source == null ? OUTBOX_NAME : CLOUDEVENTS_NAME;
  }

  /**
   * {@code row} as its message to {@code destination} carries it: with CloudEvents, the payload
   * replaced by the CloudEvent around it, measured again. A row whose claim returned its payload
   * cut (too large for any message) stays as it is: the claim check reads it whole and wraps it
   * ({@link #body}), or it is refused as too large.
   */
  public OutboxMessage apply(OutboxMessage row, String destination) {
    if (source == null
        || DestinationKind.of(destination) == DestinationKind.EVENT_BUS
        || Utf8.length(row.payload()) != row.payloadBytes()) {
      return row;
    }
    String body = CloudEvent.structured(row, row.payload(), source);
    return new OutboxMessage(
        row.id(),
        row.aggregateType(),
        row.aggregateId(),
        row.eventType(),
        body,
        row.headers(),
        row.destination(),
        row.idempotencyKey(),
        row.occurredAt(),
        row.createdAt(),
        row.retryCount(),
        row.replayCount(),
        row.firstFailedAt(),
        Utf8.length(body),
        row.rewindOf());
  }

  /**
   * The body of {@code row}'s message to {@code destination}, its payload read whole as {@code
   * payload}: what the claim check stores.
   */
  public String body(OutboxMessage row, String destination, String payload) {
    if (source == null || DestinationKind.of(destination) == DestinationKind.EVENT_BUS) {
      return payload;
    }
    return CloudEvent.structured(row, payload, source);
  }

  @Override
  public String toString() {
    return name();
  }
}
