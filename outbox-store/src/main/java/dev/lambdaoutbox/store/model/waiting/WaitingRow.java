package dev.lambdaoutbox.store.model.waiting;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * An outbox row waiting for a destination that is down, as an operator moves it: what it is, where
 * it is sent, and the error the poller recorded when it deferred it.
 *
 * @param destination the row's own destination column, or null when routing decides
 * @param lastErrorCode the code of the deferral (the destination's failure), or null
 */
public record WaitingRow(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    String destination,
    String lastErrorCode,
    String lastErrorReason,
    int retryCount,
    Instant createdAt) {

  public WaitingRow {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(createdAt, "createdAt");
  }
}
