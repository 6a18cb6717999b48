package dev.lambdaoutbox.store;

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
    long payloadBytes) {

  public OutboxMessage {
    headers = Map.copyOf(headers);
  }
}
