package dev.lambdaoutbox.store.model.deadletter;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A row of the dead-letter table, as it is stored.
 *
 * @param payload the event's JSON, byte for byte as the application wrote it
 * @param headers the headers column as stored: a JSON object of strings, or null
 * @param destination the row's own SNS topic ARN or SQS queue URL, or null to use routing
 * @param idempotencyKey null when the event has none
 * @param attempts publish attempts made before the row was given up on
 * @param replayCount how often an operator has replayed this event before
 * @param errorReason null when the failure gave none
 */
public record DeadLetter(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    String payload,
    String headers,
    String destination,
    String idempotencyKey,
    Instant occurredAt,
    Instant createdAt,
    int attempts,
    int replayCount,
    String errorCode,
    String errorReason,
    Instant firstFailedAt,
    Instant lastFailedAt,
    Instant deadAt) {
  /**
   * Most rows {@code DeadLetterStore.count()}, {@code summarize} and {@link ParkedKeys#total()}
   * count; beyond it they stop (one more row says there are more), so that an operator's read costs
   * the same at a million dead letters as at ten thousand.
   */
  public static final int COUNT_CAP = 10_000;

  public DeadLetter {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(occurredAt, "occurredAt");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(errorCode, "errorCode");
    Objects.requireNonNull(firstFailedAt, "firstFailedAt");
    Objects.requireNonNull(lastFailedAt, "lastFailedAt");
    Objects.requireNonNull(deadAt, "deadAt");
  }

  /** Where this row sits in the listing order (oldest death first). */
  public DeadLetterCursor position() {
    return new DeadLetterCursor(deadAt, id);
  }
}
