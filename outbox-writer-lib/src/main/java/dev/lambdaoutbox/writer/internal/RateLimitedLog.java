package dev.lambdaoutbox.writer.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * A warning logged at most once per period, with how many were held back since the last one; for a
 * failure that may repeat many times a second. Called from one thread.
 */
final class RateLimitedLog {
  private final System.Logger log;
  private final long periodNanos;
  private long lastLogged;
  private boolean loggedAny;
  private long heldBack;

  RateLimitedLog(System.Logger log, Duration period) {
    this.log = Objects.requireNonNull(log, "log");
    this.periodNanos = period.toNanos();
  }

  /** Logs {@code message} at WARNING, unless one was logged less than a period ago. */
  void warn(String message) {
    long now = System.nanoTime();
    if (loggedAny && now - lastLogged < periodNanos) {
      heldBack++;
      return;
    }
    String line =
        heldBack == 0
            ? message
            : message + " (" + heldBack + " more such failures since the last report)";
    log.log(System.Logger.Level.WARNING, line);
    loggedAny = true;
    lastLogged = now;
    heldBack = 0;
  }
}
