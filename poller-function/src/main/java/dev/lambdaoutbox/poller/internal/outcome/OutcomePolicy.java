package dev.lambdaoutbox.poller.internal.outcome;

import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns what publishing did with a row into what the store records:
 *
 * <ul>
 *   <li>sent: {@link DeliveryOutcome.Published};
 *   <li>a failure of the message: {@link DeliveryOutcome.DeadLetter} when permanent or out of
 *       retries, else {@link DeliveryOutcome.Retry} after a {@link Backoff} delay, the only outcome
 *       that spends a retry;
 *   <li>its destination down: {@link DeliveryOutcome.Defer} to the destination's next probe;
 *   <li>refused for now by a destination that took others of the call (throttled): {@link
 *       DeliveryOutcome.Defer} for the first backoff delay, never dead-lettered for it (the oldest
 *       unpublished age and its alarm show a row kept so);
 *   <li>waiting for the claim-check bucket: {@link DeliveryOutcome.Defer} for {@code waitingRetry};
 *   <li>not sent for lack of time: {@link DeliveryOutcome.Release}, due again at once;
 *   <li>held back behind a failed message of its FIFO group: no outcome; it keeps its lease.
 * </ul>
 */
public final class OutcomePolicy {
  /** How long a waiting row waits when no other interval is given: a schedule period. */
  public static final Duration DEFAULT_WAITING_RETRY = Duration.ofMinutes(1);

  private final int maxRetries;
  private final Backoff backoff;
  private final Duration waitingRetry;

  /**
   * @param maxRetries retries after the first attempt; a row gets at most {@code maxRetries + 1}
   */
  public OutcomePolicy(int maxRetries, Backoff backoff) {
    this(maxRetries, backoff, DEFAULT_WAITING_RETRY);
  }

  /**
   * @param waitingRetry how long a {@link Delivery.Waiting} row waits before it is tried again
   */
  public OutcomePolicy(int maxRetries, Backoff backoff, Duration waitingRetry) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries: must not be negative, was " + maxRetries);
    }
    this.maxRetries = maxRetries;
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    this.waitingRetry = Objects.requireNonNull(waitingRetry, "waitingRetry");
  }

  /**
   * @param destinationHealth the row's destination as the health table has it after this round, or
   *     null when it is healthy; required for a destination-scope failure or {@link
   *     Delivery.Why#DESTINATION_DOWN}
   */
  public Optional<DeliveryOutcome> decide(
      OutboxMessage row, Delivery delivery, DestinationHealth destinationHealth, Instant now) {
    return switch (delivery) {
      case Delivery.Sent sent -> Optional.of(new DeliveryOutcome.Published(row.id()));
      case Delivery.Failed failed ->
          Optional.of(
              switch (failed.failure().scope()) {
                case DESTINATION_UNAVAILABLE, DESTINATION_MISCONFIGURED ->
                    defer(row, failed.failure(), required(destinationHealth, row));
                case DESTINATION_BUSY -> busy(row, failed.failure(), now);
                case MESSAGE -> failed(row, failed.failure(), now);
              });
      case Delivery.Waiting waiting -> {
        Instant until = now.plus(waitingRetry);
        yield Optional.of(
            new DeliveryOutcome.Defer(
                row.id(),
                waiting.code(),
                waiting.reason() + "; no retry spent; tried again at " + until,
                until));
      }
      case Delivery.NotAttempted skipped ->
          switch (skipped.why()) {
            case TIME_SHORT -> Optional.of(new DeliveryOutcome.Release(row.id()));
            case DESTINATION_DOWN -> Optional.of(waiting(row, required(destinationHealth, row)));
            case HELD_BACK -> Optional.empty();
          };
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

  /**
   * Refused for now while the destination took other messages: tried again after the first retry's
   * delay, whatever the row's retry count, which stays as it is.
   */
  private DeliveryOutcome busy(OutboxMessage row, Failure failure, Instant now) {
    Instant until = now.plus(backoff.delay(1));
    return new DeliveryOutcome.Defer(
        row.id(),
        failure.code(),
        failure.reason()
            + "; the destination took other messages, no retry spent; tried again at "
            + until,
        until);
  }

  /** Sent, and the call showed the destination down: no retry spent. */
  private static DeliveryOutcome defer(OutboxMessage row, Failure failure, DestinationHealth down) {
    return new DeliveryOutcome.Defer(
        row.id(),
        failure.code(),
        failure.reason()
            + "; destination "
            + describe(down)
            + ", no retry spent; next probe at "
            + down.nextProbeAt(),
        down.nextProbeAt(),
        down.destination());
  }

  /** Not sent: the destination was down already. */
  private static DeliveryOutcome waiting(OutboxMessage row, DestinationHealth down) {
    return new DeliveryOutcome.Defer(
        row.id(),
        down.errorCode(),
        "destination "
            + describe(down)
            + " ("
            + down.errorCode()
            + ": "
            + down.errorReason()
            + "); not attempted, no retry spent; next probe at "
            + down.nextProbeAt(),
        down.nextProbeAt(),
        down.destination());
  }

  private static String describe(DestinationHealth down) {
    return down.destination()
        + (down.state() == DestinationState.MISCONFIGURED ? " misconfigured" : " unavailable")
        + " since "
        + down.downSince();
  }

  private static DestinationHealth required(DestinationHealth health, OutboxMessage row) {
    if (health == null) {
      throw new IllegalStateException(
          "row " + row.id() + " waits for its destination, which has no health row");
    }
    return health;
  }
}
