package dev.lambdaoutbox.poller.internal;

/**
 * Why one message was not published.
 *
 * @param code a short error code: the broker's (e.g. {@code Throttling}, {@code NotFound}) or ours
 *     (e.g. {@code ConnectionError}, {@code NO_DESTINATION})
 * @param reason a human-readable explanation, stored as the row's last error reason
 * @param permanent true when trying again cannot help: the row is dead-lettered at once
 * @param brokerUnreachable true when the endpoint could not be reached at all (connection refused,
 *     timed out, unknown host): the poller stops for the rest of the invocation
 */
public record Failure(String code, String reason, boolean permanent, boolean brokerUnreachable) {
  /** Longest code the tables hold ({@code last_error_code varchar(128)}). */
  public static final int MAX_CODE_LENGTH = 128;

  public Failure {
    code = code == null || code.isBlank() ? "Unknown" : code;
    if (code.length() > MAX_CODE_LENGTH) {
      code = code.substring(0, MAX_CODE_LENGTH);
    }
    reason = reason == null ? "" : reason;
  }

  public static Failure permanent(String code, String reason) {
    return new Failure(code, reason, true, false);
  }

  public static Failure transientFailure(String code, String reason) {
    return new Failure(code, reason, false, false);
  }
}
