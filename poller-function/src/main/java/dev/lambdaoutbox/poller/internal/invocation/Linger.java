package dev.lambdaoutbox.poller.internal.invocation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * When a woken run stops. It claims every {@link #POLL_INTERVAL} until its promise, the time until
 * which its claims keep starting, has passed at the start of a claim; so the commits that follow a
 * wake-up are published by the same run. The promise is the later of:
 *
 * <ul>
 *   <li>its start, plus the quiet period its wake-up announced (the waker sends no other for that
 *       long after the send, and the send came before this start), plus {@link #MARGIN}: so every
 *       commit the waker left without a wake-up is claimed by a claim that began after it, on
 *       clocks that differ by less than the margin;
 *   <li>once a claim has found rows, the linger ({@code OUTBOX_WAKE_LINGER_MS}) past the last that
 *       did: a burst is published by one run.
 * </ul>
 *
 * A run woken without a quiet period (each commit has a wake-up of its own) whose first claims
 * found nothing stops at once: another run took the rows it was woken for. The promise never runs
 * past the last moment the run may still claim ({@code deadline}), and the {@link LingerLease}
 * holds it, so that only one woken run lingers. One per run.
 */
final class Linger {
  /** How often a lingering run claims. */
  static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  /**
   * How long past its wake-up's quiet period a run claims: more than the clocks of the waker, this
   * run and another lingering run can disagree on a duration of seconds, or on the database's time.
   */
  static final Duration MARGIN = Duration.ofSeconds(1);

  private final Clock clock;
  private final Duration linger;
  private final Instant covers;
  private final Instant deadline;
  private Instant lastFound;

  /**
   * @param clock the clock the promise is kept on: the database's ({@link
   *     dev.lambdaoutbox.store.clock.DatabaseClock}), the one the lease compares promises on
   * @param linger how long past the last claim that found rows the run lingers
   * @param quiet the quiet period the wake-up announced; zero when none
   * @param deadline the last moment a claim of the run may start
   */
  Linger(Clock clock, Duration linger, Duration quiet, Instant deadline) {
    this.clock = clock;
    this.linger = linger;
    this.deadline = deadline;
    Instant start = clock.instant();
    this.covers = quiet.isZero() ? null : start.plus(quiet).plus(MARGIN);
  }

  /** A claim found {@code rows} rows, now published. */
  void found(int rows) {
    if (rows > 0) {
      lastFound = clock.instant();
    }
  }

  /** Whether no claim of the run has found a row yet. */
  boolean foundNothing() {
    return lastFound == null;
  }

  /**
   * Whether the run must claim after its start whatever it finds: its wake-up had a quiet period.
   */
  boolean covers() {
    return covers != null;
  }

  /**
   * Whether the promise the wake-up asked for ran past the {@code deadline}: the commits after it
   * wait for the next wake-up or the schedule.
   */
  boolean cutShort() {
    return covers != null && covers.isAfter(deadline);
  }

  /**
   * Until when the run's claims keep starting, at most the {@code deadline}. Grows as claims find
   * rows, never shrinks.
   */
  Instant promise() {
    Instant promise = covers;
    if (lastFound != null) {
      Instant after = lastFound.plus(linger);
      promise = promise == null || after.isAfter(promise) ? after : promise;
    }
    if (promise == null) {
      return clock.instant();
    }
    return promise.isAfter(deadline) ? deadline : promise;
  }

  /**
   * Why the run stops, its last claim having started at {@code claimedAt}, or null to claim again
   * after {@link #POLL_INTERVAL}.
   */
  String stop(Instant claimedAt) {
    if (covers == null && (lastFound == null || linger.isZero())) {
      return lastFound == null ? "drained" : "lingered";
    }
    return claimedAt.isBefore(promise()) ? null : "lingered";
  }
}
