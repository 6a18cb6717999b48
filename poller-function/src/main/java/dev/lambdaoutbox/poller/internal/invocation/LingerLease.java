package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Which woken run lingers: the one holding the store's {@link OutboxStore#WAKE_LINGER_LEASE}, whose
 * end is its promise ({@link Linger#promise()}: until when its claims keep starting). A run woken
 * with a quiet period takes it when the holder's end comes no later than its own promise, and
 * lingers in its place (the holder's next renewal fails, and it stops); otherwise it stops, as the
 * holder covers everything it was woken for. A run woken without one takes it only when free. So
 * one run lingers, and the latest promise is kept.
 *
 * <p>The holder renews it at most once per {@link #RENEW_AFTER}; a failed renewal stops it. It
 * gives it back when it stops; a dead holder loses it at its end. It decides only who lingers,
 * never whether a row is published: a wake-up is sent after its commit, and a run asks only after a
 * claim that began after its wake-up arrived. One per run.
 */
final class LingerLease {
  /**
   * How long after taking or renewing it the holder renews it again: also how long a holder whose
   * lease was taken over may linger on beside the new holder, so short (a one-row update every
   * other claim) that the two overlap little.
   */
  static final Duration RENEW_AFTER = Duration.ofMillis(200);

  private final OutboxStore store;
  private final String owner;
  private final Clock clock;
  private final JsonLogger log;
  private Instant renewAt;

  LingerLease(OutboxStore store, String owner, Clock clock, JsonLogger log) {
    this.store = store;
    this.owner = owner;
    this.clock = clock;
    this.log = log;
  }

  /**
   * Whether this run may linger on: it holds the lease, now or after taking or renewing it until
   * {@code promise}. A store that fails to answer is taken as a no: the run has published what it
   * was woken for, and the next commit's wake-up starts a run that asks again.
   *
   * @param takeOver whether to take the lease from a holder whose end comes no later than {@code
   *     promise} (a run woken with a quiet period), or only when free
   */
  boolean hold(Instant promise, boolean takeOver) {
    Instant now = clock.instant();
    if (renewAt != null && now.isBefore(renewAt)) {
      return true;
    }
    boolean held;
    try {
      // The store takes the lease when its end is at or before the moment given, or it is ours.
      Instant endsBy = takeOver && promise.isAfter(now) ? promise : now;
      held = store.holdLease(OutboxStore.WAKE_LINGER_LEASE, owner, endsBy, promise);
    } catch (RuntimeException e) {
      log.warn(
          "could not take the lease of the lingering woken run; this run stops without lingering",
          Map.of("reason", String.valueOf(e.getMessage())));
      held = false;
    }
    renewAt = held ? now.plus(RENEW_AFTER) : null;
    return held;
  }

  /** Gives the lease back if this run holds it, so that the next woken run may linger at once. */
  void release() {
    if (renewAt == null) {
      return;
    }
    renewAt = null;
    try {
      store.releaseLease(OutboxStore.WAKE_LINGER_LEASE, owner, clock.instant());
    } catch (RuntimeException e) {
      // Not this run's failure: its rows are recorded, and the lease runs out at its promise.
      log.warn(
          "could not give back the lease of the lingering woken run; it runs out by itself",
          Map.of("reason", String.valueOf(e.getMessage())));
    }
  }
}
