package dev.lambdaoutbox.store.model.waiting;

import dev.lambdaoutbox.core.OutboxException;

/**
 * A retarget or dead-lettering of waiting rows stopped part-way. The batch that failed was rolled
 * back whole; the batches before it stay committed, and {@link #committed()} says what they did.
 */
public final class WaitingActionException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final transient WaitingActionResult committed;

  public WaitingActionException(String message, WaitingActionResult committed, Throwable cause) {
    super(message, cause);
    this.committed = committed;
  }

  /** What the batches committed before the failure did. */
  public WaitingActionResult committed() {
    return committed;
  }
}
