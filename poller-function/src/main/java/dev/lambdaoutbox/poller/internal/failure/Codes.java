package dev.lambdaoutbox.poller.internal.failure;

/** The error codes the poller itself records, beside those SNS and SQS return. */
public final class Codes {
  /** No row destination, no matching route, and no default destination. */
  public static final String NO_DESTINATION = "NO_DESTINATION";

  /** The row's destination is neither an SNS topic ARN nor an SQS queue URL. */
  public static final String INVALID_DESTINATION = "INVALID_DESTINATION";

  /** Body and attributes exceed the 256 KiB SNS/SQS limit: refused before sending. */
  public static final String MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE";

  /** The endpoint refused or dropped the connection, or its host is unknown. */
  public static final String CONNECTION_ERROR = "ConnectionError";

  /** The call did not finish within {@code OUTBOX_PUBLISH_TIMEOUT_MS}. */
  public static final String TIMEOUT = "Timeout";

  /** Another client-side failure of the SDK. */
  public static final String CLIENT_ERROR = "ClientError";

  /**
   * The batch response listed the entry neither as successful nor as failed: it is treated as not
   * published.
   */
  public static final String MISSING_FROM_RESPONSE = "MissingFromResponse";

  private Codes() {}
}
