package dev.lambdaoutbox.poller.internal.invocation;

import java.time.Duration;

/**
 * When a woken run stops: at once if its first claims found nothing (another run took the rows it
 * was woken for), else once it has found no row for the linger, claiming every {@link
 * #POLL_INTERVAL} meanwhile; so the commits that follow a wake-up are published by the same run.
 * Only the run holding the {@link LingerLease} lingers. One per run.
 */
final class Linger {
  /** How often a lingering run claims. */
  static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  private final long lingerNanos;
  private long lastFound;
  private boolean foundAny;

  Linger(Duration linger) {
    this.lingerNanos = linger.toNanos();
  }

  /** A claim found {@code rows} rows, now published. */
  void found(int rows) {
    if (rows > 0) {
      foundAny = true;
      lastFound = System.nanoTime();
    }
  }

  /** Whether no claim of the run has found a row yet. */
  boolean foundNothing() {
    return !foundAny;
  }

  /** Why the run stops now, or null to claim again after {@link #POLL_INTERVAL}. */
  String stop() {
    if (!foundAny) {
      return "drained";
    }
    return System.nanoTime() - lastFound >= lingerNanos ? "lingered" : null;
  }
}
