package dev.lambdaoutbox.store.model.audit;

import java.util.Objects;

/**
 * Who asked for a change to the dead letters, and why: written to every audit row the change makes.
 *
 * @param requestId groups the audit rows of one operator request (the Lambda request id, which
 *     CloudTrail's record of the {@code Invoke} call carries as its {@code requestID})
 * @param requestedBy whom the audit holds responsible: the identity the invocation carried when it
 *     carried one, else the name the request claimed, else a placeholder naming the request id
 * @param reason why, or null when none was given
 * @param claimedBy the name the request itself gave ({@code requestedBy} in its body), unverified;
 *     null when it gave none
 * @param invokedBy the identity the invocation carried (a Cognito identity, a client context's
 *     installation), set by Lambda from the caller's credentials or call; null when none
 */
public record AuditInfo(
    String requestId, String requestedBy, String reason, String claimedBy, String invokedBy) {
  /** The longest {@code requestedBy} and {@code claimedBy} the audit table holds. */
  public static final int MAX_REQUESTED_BY = 255;

  /** The longest {@code invokedBy} the audit table holds. */
  public static final int MAX_INVOKED_BY = 512;

  public AuditInfo {
    requireText(requestId, "requestId", 128);
    requireText(requestedBy, "requestedBy", MAX_REQUESTED_BY);
    if (claimedBy != null) {
      requireText(claimedBy, "claimedBy", MAX_REQUESTED_BY);
    }
    if (invokedBy != null) {
      requireText(invokedBy, "invokedBy", MAX_INVOKED_BY);
    }
  }

  /** Who asked, as one name, with no separate claim or invocation identity. */
  public AuditInfo(String requestId, String requestedBy, String reason) {
    this(requestId, requestedBy, reason, null, null);
  }

  private static void requireText(String value, String name, int maxLength) {
    Objects.requireNonNull(value, name);
    if (value.isBlank() || value.length() > maxLength) {
      throw new IllegalArgumentException(
          name + " must be 1 to " + maxLength + " characters, not blank");
    }
  }
}
