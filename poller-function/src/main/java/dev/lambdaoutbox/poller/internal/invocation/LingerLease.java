package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Which woken run lingers: the one holding the store's {@link OutboxStore#WAKE_LINGER_LEASE}. A
 * woken run asks for it once its drain is over and it would linger, with its promise ({@link
 * Linger#promise()}: until when its claims keep starting) as the lease's end. The holder's end is
 * thus a time until which it claims, and a run asking for it:
 *
 * <ul>
 *   <li>woken with a quiet period, takes it when the holder's end comes no later than its own
 *       promise (the lease's compare-and-set, with the promise as the moment to compare with), and
 *       lingers in its place: the holder, whose next renewal fails, stops, and every commit it
 *       covered is covered by the new holder, which claims at least as long. When the holder's end
 *       comes later, the asking run stops: the holder claims past everything this run was woken to
 *       cover. So however the runs of overlapping wake-ups interleave, one lingers, and the latest
 *       promise is kept.
 *   <li>woken without one (each commit has a wake-up of its own), takes it only when it is free.
 * </ul>
 *
 * The holder renews it at most once per {@link #RENEW_AFTER}, with its promise as it grows (a lease
 * end below the promise is still true); a renewal that fails means another run took it, and this
 * one stops. A holder gives it back when it stops; one that died loses it at its end. It decides
 * only who lingers, never whether a row is published: a run asks only after a claim that began
 * after its wake-up arrived, and a wake-up is sent after its commit. One per run.
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
