package dev.lambdaoutbox.store.model;

import java.util.Objects;

/**
 * What {@link OutboxStore#complete} really did with one outcome.
 *
 * @param result what was applied, or {@link Result#LEASE_LOST} when nothing was
 * @param heldBy for {@link Result#LEASE_LOST}: the owner holding the row's lease now, or null when
 *     nobody does (the row waits to be claimed again) or the row is gone
 * @param gone for {@link Result#LEASE_LOST}: the row had already left the outbox (another poller
 *     published or dead-lettered it)
 */
public record Completion(DeliveryOutcome outcome, Result result, String heldBy, boolean gone) {
  /** What became of the row. */
  public enum Result {
    /** Removed from the outbox (or kept as SENT under retention). */
    PUBLISHED,
    /** One retry spent; due again after its backoff. */
    RETRIED,
    /** Moved to the dead-letter table. */
    DEAD_LETTERED,
    /** Put back without spending a retry ({@link DeliveryOutcome.Defer} or {@code Release}). */
    DEFERRED,
    /**
     * Not applied: the row had been claimed by another owner after this owner's lease ran out, or
     * was gone.
     */
    LEASE_LOST
  }

  public Completion {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(result, "result");
  }

  /** The outcome was applied as asked. */
  public static Completion applied(DeliveryOutcome outcome) {
    return new Completion(outcome, resultOf(outcome), null, false);
  }

  /** The outcome was not applied; {@code heldBy} is who holds the row now (null: nobody). */
  public static Completion leaseLost(DeliveryOutcome outcome, String heldBy) {
    return new Completion(outcome, Result.LEASE_LOST, heldBy, false);
  }

  /** The outcome was not applied: the row had already left the outbox. */
  public static Completion gone(DeliveryOutcome outcome) {
    return new Completion(outcome, Result.LEASE_LOST, null, true);
  }

  public boolean applied() {
    return result != Result.LEASE_LOST;
  }

  private static Result resultOf(DeliveryOutcome outcome) {
    return switch (outcome) {
      case DeliveryOutcome.Published p -> Result.PUBLISHED;
      case DeliveryOutcome.Retry r -> Result.RETRIED;
      case DeliveryOutcome.DeadLetter d -> Result.DEAD_LETTERED;
      case DeliveryOutcome.Defer d -> Result.DEFERRED;
      case DeliveryOutcome.Release r -> Result.DEFERRED;
    };
  }
}
