package dev.lambdaoutbox.writer.internal;

/**
 * A wake-up the poller function did not accept. Never reaches the application: the waker counts and
 * logs it, and the schedule publishes the rows.
 */
public final class WakeUpFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WakeUpFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
