package dev.lambdaoutbox.reprocessor;

import java.time.Instant;
import java.util.UUID;

/** An outbox_messages row as a test reads it back. */
record OutboxRow(
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
    String status,
    int retryCount,
    int replayCount,
    Instant nextAttemptAt,
    String lockedBy,
    Instant lockedUntil,
    String lastErrorCode,
    String lastErrorReason,
    Instant firstFailedAt) {}
