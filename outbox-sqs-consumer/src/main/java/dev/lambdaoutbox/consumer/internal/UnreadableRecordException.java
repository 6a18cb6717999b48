package dev.lambdaoutbox.consumer.internal;

/**
 * An SQS record that is not an outbox event the consumer can read; the message names what is
 * missing or wrong. Such a record fails on every delivery, so it ends in the queue's dead-letter
 * queue (its redrive policy) or expires.
 */
public final class UnreadableRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnreadableRecordException(String message) {
    super(message);
  }

  public UnreadableRecordException(String message, Throwable cause) {
    super(message, cause);
  }
}
