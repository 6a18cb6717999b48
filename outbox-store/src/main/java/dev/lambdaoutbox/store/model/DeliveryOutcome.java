package dev.lambdaoutbox.store.model;

import java.time.Instant;
import java.util.UUID;

/**
 * What became of one claimed row; {@link OutboxStore#complete} records it. Only a {@link Retry}
 * spends one of the row's retries, and only a {@link DeadLetter} takes it out of the outbox
 * unpublished.
 */
public sealed interface DeliveryOutcome {
  UUID id();

  /**
   * The broker accepted the message: the row leaves the outbox (or is kept as SENT under
   * retention).
   */
  record Published(UUID id) implements DeliveryOutcome {}

  /**
   * A transient failure that belongs to the message: retry_count goes up by one, the row is due
   * again at {@code nextAttemptAt}, and the error is kept as last_error_code/last_error_reason.
   */
  record Retry(UUID id, String errorCode, String reason, Instant nextAttemptAt)
      implements DeliveryOutcome {}

  /**
   * A permanent failure of the message, or the retry limit reached: the row moves to the
   * dead-letter table in one transaction, with the error, its attempts and its first and last
   * failure times.
   */
  record DeadLetter(UUID id, String errorCode, String reason) implements DeliveryOutcome {}

  /**
   * The row's destination is down (unreachable, failing, or refusing every message): the row waits
   * until {@code until}, its lease cleared and its retry count untouched; the error is kept as
   * last_error_code/last_error_reason so that an operator reading the row sees why it waits.
   *
   * @param destination the destination the row waits for (recorded as the row's {@code
   *     waiting_for}, so that operators can count, list and move the rows waiting for it), or null
   */
  record Defer(UUID id, String errorCode, String reason, Instant until, String destination)
      implements DeliveryOutcome {

    /** A deferral that names no destination it waits for. */
    public Defer(UUID id, String errorCode, String reason, Instant until) {
      this(id, errorCode, reason, until, null);
    }
  }

  /**
   * Claimed but not sent (the invocation ran short of time): the row is due again at once, its
   * lease cleared; nothing else about it changes.
   */
  record Release(UUID id) implements DeliveryOutcome {}
}
