package dev.lambdaoutbox.store;

import java.time.Instant;
import java.util.UUID;

/** What became of one claimed row; {@link OutboxStore#complete} records it. */
public sealed interface DeliveryOutcome {
  UUID id();

  /**
   * The broker accepted the message: the row leaves the outbox (or is kept as SENT under
   * retention).
   */
  record Published(UUID id) implements DeliveryOutcome {}

  /**
   * A transient failure: retry_count goes up by one, the row is due again at {@code nextAttemptAt},
   * and the error is kept as last_error_code/last_error_reason.
   */
  record Retry(UUID id, String errorCode, String reason, Instant nextAttemptAt)
      implements DeliveryOutcome {}

  /**
   * A permanent failure, or the retry limit reached: the row moves to the dead-letter table in one
   * transaction, with the error, its attempts and its first and last failure times.
   */
  record DeadLetter(UUID id, String errorCode, String reason) implements DeliveryOutcome {}
}
