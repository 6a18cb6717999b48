package dev.lambdaoutbox.poller.internal.publish;

import dev.lambdaoutbox.poller.internal.failure.Failure;
import java.util.Objects;
import java.util.UUID;

/** What publishing did with one message. */
public sealed interface Delivery {
  UUID id();

  /** The broker accepted the message. */
  record Sent(UUID id) implements Delivery {}

  /** The broker, the client or our own checks refused it; {@link Failure#scope()} says whose. */
  record Failed(UUID id, Failure failure) implements Delivery {}

  /**
   * Not sent: something the message needs besides its destination failed (the claim check could not
   * store its payload); it is tried again later, no retry spent, as when its destination is down.
   */
  record Waiting(UUID id, String code, String reason) implements Delivery {}

  /** Not sent at all; {@link Why} says why, {@code reason} in words for the logs. */
  record NotAttempted(UUID id, Why why, String reason) implements Delivery {
    public NotAttempted {
      Objects.requireNonNull(why, "why");
    }

    /** Held back behind an earlier message of its FIFO group that failed. */
    public static NotAttempted heldBack(UUID id) {
      return new NotAttempted(
          id, Why.HELD_BACK, "held back behind an earlier message of its FIFO group that failed");
    }
  }

  /** Why a message was not sent. */
  enum Why {
    /**
     * Too little time was left before the invocation's timeout or the lease's end: the row is
     * released, due again at once, its retry count untouched.
     */
    TIME_SHORT,
    /**
     * Its destination is down (found so in this round, or marked down and not due for a probe): the
     * row is deferred to the destination's next probe, its retry count untouched.
     */
    DESTINATION_DOWN,
    /**
     * An earlier message of its FIFO group failed, and it may not overtake it: the row keeps its
     * lease, and is claimed again once the lease runs out.
     */
    HELD_BACK
  }

  /** Why a gate refuses a call: the {@link NotAttempted} each message of it becomes. */
  record Refusal(Why why, String reason) {
    public Refusal {
      Objects.requireNonNull(why, "why");
    }

    public NotAttempted of(UUID id) {
      return new NotAttempted(id, why, reason);
    }
  }
}
