package dev.lambdaoutbox.poller.internal.failure;

/** The error codes the poller itself records, beside those SNS, SQS and EventBridge return. */
public final class Codes {
  /** No row destination, no matching route, and no default destination. */
  public static final String NO_DESTINATION = "NO_DESTINATION";

  /** The row's destination is none of an SNS topic ARN, SQS queue URL, EventBridge bus ARN. */
  public static final String INVALID_DESTINATION = "INVALID_DESTINATION";

  /**
   * The message is larger than its destination accepts (SNS 256 KiB, SQS and EventBridge 1 MiB), or
   * its payload larger than the outbox carries (256 KiB): refused before sending.
   */
  public static final String MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE";

  /** Routed to an EventBridge bus, whose Detail must be a JSON object, the payload is not one. */
  public static final String DETAIL_NOT_A_JSON_OBJECT = "DETAIL_NOT_A_JSON_OBJECT";

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
