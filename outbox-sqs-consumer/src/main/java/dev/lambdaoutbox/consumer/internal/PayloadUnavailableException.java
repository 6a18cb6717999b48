package dev.lambdaoutbox.consumer.internal;

/**
 * The payload a claim check points to could not be read from S3 now (the object is missing, the
 * read was denied, S3 did not answer). The record fails and SQS delivers it again; the message
 * names the bucket and key.
 */
public final class PayloadUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PayloadUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
