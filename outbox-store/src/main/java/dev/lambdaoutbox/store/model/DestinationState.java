package dev.lambdaoutbox.store.model;

/** Why a destination is not healthy (a healthy destination has no health row at all). */
public enum DestinationState {
  /**
   * The transport or the service failed: connection refused or reset, timeouts, 5xx, throttling, or
   * every entry of a batch failed transiently. Time may cure it.
   */
  UNAVAILABLE,
  /**
   * The destination refuses every message for a reason an operator must fix: it does not exist, the
   * poller may not publish to it, or its KMS key cannot be used.
   */
  MISCONFIGURED
}
