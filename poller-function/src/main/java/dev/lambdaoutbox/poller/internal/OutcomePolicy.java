package dev.lambdaoutbox.poller.internal;

import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.OutboxMessage;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns what publishing did with a row into what the store records: sent rows are {@link
 * DeliveryOutcome.Published}; permanent failures, and transient ones once {@code maxRetries}
 * retries are used up, are {@link DeliveryOutcome.DeadLetter}; other transient failures are {@link
 * DeliveryOutcome.Retry} after a {@link Backoff} delay. Rows not attempted get no outcome at all:
 * they keep their lease and their retry count.
 */
public final class OutcomePolicy {
  private final int maxRetries;
  private final Backoff backoff;

  /**
   * @param maxRetries retries after the first attempt; a row gets at most {@code maxRetries + 1}
   */
  public OutcomePolicy(int maxRetries, Backoff backoff) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries: must not be negative, was " + maxRetries);
    }
    this.maxRetries = maxRetries;
    this.backoff = Objects.requireNonNull(backoff, "backoff");
  }

  public Optional<DeliveryOutcome> decide(OutboxMessage row, Delivery delivery, Instant now) {
    return switch (delivery) {
      case Delivery.Sent sent -> Optional.of(new DeliveryOutcome.Published(row.id()));
      case Delivery.NotAttempted skipped -> Optional.empty();
      case Delivery.Failed failed -> Optional.of(failed(row, failed.failure(), now));
    };
  }

  private DeliveryOutcome failed(OutboxMessage row, Failure failure, Instant now) {
    if (failure.permanent()) {
      return new DeliveryOutcome.DeadLetter(row.id(), failure.code(), failure.reason());
    }
    int attempts = row.retryCount() + 1;
    if (row.retryCount() >= maxRetries) {
      return new DeliveryOutcome.DeadLetter(
          row.id(),
          failure.code(),
          "gave up after "
              + attempts
              + (attempts == 1 ? " attempt" : " attempts")
              + " (OUTBOX_MAX_RETRIES="
              + maxRetries
              + "); last error: "
              + failure.reason());
    }
    return new DeliveryOutcome.Retry(
        row.id(), failure.code(), failure.reason(), now.plus(backoff.delay(attempts)));
  }
}
