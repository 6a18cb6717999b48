package dev.lambdaoutbox.poller.internal.failure;

import java.util.Objects;

/**
 * Why one message was not published, and whose failure it is ({@link Scope}).
 *
 * @param code a short error code: the broker's (e.g. {@code Throttling}, {@code NotFound}) or ours
 *     (e.g. {@code ConnectionError}, {@code NO_DESTINATION})
 * @param reason a human-readable explanation, stored as the row's last error reason
 * @param scope whether the message or its destination failed
 * @param permanent for {@link Scope#MESSAGE}: true when trying again cannot help (the row is
 *     dead-lettered at once); false when it is retried, spending one of its retries. For the
 *     destination scopes, whether an operator must act ({@link Scope#DESTINATION_MISCONFIGURED})
 */
public record Failure(String code, String reason, Scope scope, boolean permanent) {
  /** Longest code the tables hold ({@code last_error_code varchar(128)}). */
  public static final int MAX_CODE_LENGTH = 128;

  /** Whose failure it is; only {@link #MESSAGE} failures ever spend a row's retries. */
  public enum Scope {
    /**
     * The message's own: an entry rejected while its batch otherwise went through with a
     * message-level code (invalid parameter, message too long) or a code nobody knows, or our own
     * checks (too large, no destination).
     */
    MESSAGE,
    /**
     * The destination took other entries of the call but refused this one for now: throttled, or an
     * internal failure of the service. Nothing is wrong with the message and the destination is up:
     * the row is tried again after a short wait without spending a retry, and the destination is
     * not marked down.
     */
    DESTINATION_BUSY,
    /**
     * The transport or the service: connection refused, timeouts, 5xx, throttling, expired tokens,
     * unknown client errors, or a batch in which every entry failed transiently. The destination is
     * marked down; its rows wait without spending retries.
     */
    DESTINATION_UNAVAILABLE,
    /**
     * The destination refuses every message for a reason an operator must fix: not found, not
     * authorized, its KMS key disabled or inaccessible. Parked like an outage, and said so.
     */
    DESTINATION_MISCONFIGURED
  }

  public Failure {
    code = code == null || code.isBlank() ? "Unknown" : code;
    if (code.length() > MAX_CODE_LENGTH) {
      code = code.substring(0, MAX_CODE_LENGTH);
    }
    reason = reason == null ? "" : reason;
    Objects.requireNonNull(scope, "scope");
  }

  /** A permanent failure of the message: dead-lettered at once. */
  public static Failure permanent(String code, String reason) {
    return new Failure(code, reason, Scope.MESSAGE, true);
  }

  /** A transient failure of the message: retried after a backoff, spending one retry. */
  public static Failure transientFailure(String code, String reason) {
    return new Failure(code, reason, Scope.MESSAGE, false);
  }

  /** Refused for now by a destination that took other messages: no retry spent. */
  public static Failure destinationBusy(String code, String reason) {
    return new Failure(code, reason, Scope.DESTINATION_BUSY, false);
  }

  public static Failure destinationUnavailable(String code, String reason) {
    return new Failure(code, reason, Scope.DESTINATION_UNAVAILABLE, false);
  }

  public static Failure destinationMisconfigured(String code, String reason) {
    return new Failure(code, reason, Scope.DESTINATION_MISCONFIGURED, true);
  }

  /** Whether the destination is down: unavailable or misconfigured, its rows left waiting. */
  public boolean destinationDown() {
    return scope == Scope.DESTINATION_UNAVAILABLE || scope == Scope.DESTINATION_MISCONFIGURED;
  }

  /** Whether the destination said it throttles the call or this message. */
  public boolean throttled() {
    return FailureClassifier.isThrottling(code);
  }
}
