package dev.lambdaoutbox.store.deadletter;

import java.util.Objects;

/**
 * Who asked for a change to the dead letters, and why: written to every audit row the change makes.
 *
 * @param requestId groups the audit rows of one operator request (the Lambda request id)
 * @param requestedBy the person or system that asked
 * @param reason why, or null when none was given
 */
public record AuditInfo(String requestId, String requestedBy, String reason) {
  public AuditInfo {
    requireText(requestId, "requestId", 128);
    requireText(requestedBy, "requestedBy", 255);
  }

  private static void requireText(String value, String name, int maxLength) {
    Objects.requireNonNull(value, name);
    if (value.isBlank() || value.length() > maxLength) {
      throw new IllegalArgumentException(
          name + " must be 1 to " + maxLength + " characters, not blank");
    }
  }
}
