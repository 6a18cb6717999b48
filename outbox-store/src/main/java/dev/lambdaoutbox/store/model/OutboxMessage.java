package dev.lambdaoutbox.store.model;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * An outbox row as the poller claimed it.
 *
 * @param destination the row's own destination (SNS topic ARN or SQS queue URL), or null to use
 *     routing
 * @param idempotencyKey null when the event has none
 * @param retryCount failed publish attempts so far
 * @param firstFailedAt when the first publish attempt failed, or null
 * @param payloadBytes the UTF-8 bytes of the payload as stored: more than {@code payload}'s own
 *     when a claim bounded by bytes returned it cut (a payload larger than any broker accepts), so
 *     the row is dead-lettered as too large by its real size
 * @param rewindOf for a copy a rewind made of a delivered event, that event's id (the message goes
 *     out under it, see {@link #eventId}); null for every other row
 */
public record OutboxMessage(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    String payload,
    Map<String, String> headers,
    String destination,
    String idempotencyKey,
    Instant occurredAt,
    Instant createdAt,
    int retryCount,
    int replayCount,
    Instant firstFailedAt,
    long payloadBytes,
    UUID rewindOf) {

  public OutboxMessage {
    headers = Map.copyOf(headers);
  }

  /** A row the application wrote (no rewind copy). */
  public OutboxMessage(
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      Map<String, String> headers,
      String destination,
      String idempotencyKey,
      Instant occurredAt,
      Instant createdAt,
      int retryCount,
      int replayCount,
      Instant firstFailedAt,
      long payloadBytes) {
    this(
        id,
        aggregateType,
        aggregateId,
        eventType,
        payload,
        headers,
        destination,
        idempotencyKey,
        occurredAt,
        createdAt,
        retryCount,
        replayCount,
        firstFailedAt,
        payloadBytes,
        null);
  }

  /**
   * The id the message carries ({@code eventId}, a FIFO de-duplication id, a CloudEvent's id): the
   * row's own, or for a rewind's copy the id of the event it copies, so that a consumer sees the
   * event it would have seen. The row's {@link #id} still names the row in the outbox.
   */
  public UUID eventId() {
    return rewindOf == null ? id : rewindOf;
  }
}
