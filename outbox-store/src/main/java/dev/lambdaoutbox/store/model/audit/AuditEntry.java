package dev.lambdaoutbox.store.model.audit;

import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import java.time.Instant;
import java.util.UUID;

/**
 * A row of the dead-letter audit table: one action on one dead letter.
 *
 * @param action {@link #REPLAY}, {@link #DISCARD}, {@link #RETARGET}, {@link #DEAD_LETTER}, {@link
 *     #REWIND}, or {@link #SUPERSEDED} (the poller replaced the dead letter with a newer one of the
 *     same event id)
 * @param details the JSON written with the action: the dead letter as it was, and for a replay the
 *     destination override
 * @param snapshot the dead letter as it was when the action was taken, read back from {@code
 *     details}; with it a discarded event can be restored exactly
 * @param destinationOverride where a replay was sent instead of the row's own destination, or null
 * @param claimedBy the name the request gave for itself, unverified; null when it gave none (and
 *     for entries written before migration V6)
 * @param invokedBy the identity the invocation carried (Cognito identity, client context); null
 *     when it carried none
 */
public record AuditEntry(
    long auditId,
    String action,
    UUID deadLetterId,
    String requestId,
    String requestedBy,
    String reason,
    Instant createdAt,
    String details,
    DeadLetter snapshot,
    String destinationOverride,
    String claimedBy,
    String invokedBy) {

  public static final String REPLAY = "REPLAY";
  public static final String DISCARD = "DISCARD";

  /**
   * An operator sent a row waiting for a destination that is down to another destination: {@code
   * deadLetterId} is the row's (event) id, {@link #destinationOverride} where it goes, and {@code
   * details} the destination it waited for and the row as it was.
   */
  public static final String RETARGET = "RETARGET";

  /**
   * An operator moved a row waiting for a destination that is down to the dead letters: the
   * snapshot is the dead letter as it was written.
   */
  public static final String DEAD_LETTER = "DEAD_LETTER";

  /**
   * A step of a rewind copied delivered events to a destination: {@code deadLetterId} is the
   * rewind's id (every step of one rewind has it), {@link #destinationOverride} where the copies
   * go, and {@code details} the range and what the step copied.
   */
  public static final String REWIND = "REWIND";

  /**
   * The poller dead-lettered an event whose id was already a dead letter: this row keeps the older
   * dead letter whole, and the newer one took its place.
   */
  public static final String SUPERSEDED = "SUPERSEDED";

  /**
   * The first row of a failure group's re-drive, replayed alone (due now) so that its fate decides
   * whether the rest follows: the snapshot is the dead letter as it was.
   */
  public static final String REDRIVE_CANARY = "REDRIVE_CANARY";

  /**
   * A row of a failure group's re-drive, replayed with a paced due time: the snapshot is the dead
   * letter as it was; {@code details} also holds the due time.
   */
  public static final String REDRIVE = "REDRIVE";

  /** A re-drive's row held by a stop (due never until resumed): {@code details} holds the group. */
  public static final String REDRIVE_HOLD = "REDRIVE_HOLD";

  /** A held re-drive's row given a paced due time again: {@code details} holds group and time. */
  public static final String REDRIVE_RESUME = "REDRIVE_RESUME";
}
