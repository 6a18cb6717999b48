package dev.lambdaoutbox.store.model.deadletter;

import java.util.UUID;

/**
 * What became of a re-drive's canary, read from the tables.
 *
 * @param errorCode for {@link State#FAILED_AGAIN} the new dead letter's error, for {@link
 *     State#PENDING} the last failed attempt's, if any; else null
 * @param errorReason as {@code errorCode}, the reason
 */
public record CanaryCheck(UUID id, State state, String errorCode, String errorReason) {
  /** The canary's fate. */
  public enum State {
    /** Published: gone from the outbox (or kept as sent), and not dead again. */
    DELIVERED,
    /** Dead again, since it was replayed. */
    FAILED_AGAIN,
    /** Still in the outbox, not yet published. */
    PENDING
  }
}
