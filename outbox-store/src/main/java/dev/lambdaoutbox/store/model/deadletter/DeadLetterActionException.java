package dev.lambdaoutbox.store.model.deadletter;

import dev.lambdaoutbox.core.OutboxException;

/**
 * A replay or discard failed part-way. The batch that failed was rolled back whole; the batches
 * before it stay committed, and {@link #committed()} says what they did, so the operator knows
 * exactly where things stand.
 */
public final class DeadLetterActionException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final transient DeadLetterActionResult committed;

  public DeadLetterActionException(
      String message, DeadLetterActionResult committed, Throwable cause) {
    super(message, cause);
    this.committed = committed;
  }

  /** What the batches committed before the failure did. */
  public DeadLetterActionResult committed() {
    return committed;
  }
}
