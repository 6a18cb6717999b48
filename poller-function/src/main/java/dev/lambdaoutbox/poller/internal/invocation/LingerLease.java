package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Which woken run lingers: the one holding the store's {@link OutboxStore#WAKE_LINGER_LEASE}. A
 * woken run asks for it once its drain is over and it would linger; when another run holds it, that
 * run is claiming every {@link Linger#POLL_INTERVAL} and publishes what follows, so this one stops
 * instead of lingering beside it. The holder renews it at most once per {@link #RENEW_AFTER} and
 * gives it back when it stops; a holder that died loses it after {@link #TERM}.
 *
 * <p>It decides only who lingers, never whether a row is published: a run asks only after a claim
 * that began after its wake-up arrived, and a wake-up is sent after its commit, so every commit has
 * been claimed by a run that began after it, or has a wake-up of its own still to come. A lingering
 * run that stops just as a row is committed leaves that row to the row's own wake-up. One per run.
 */
final class LingerLease {
  /** How long a lease lasts unless renewed. */
  static final Duration TERM = Duration.ofSeconds(3);

  /** How long after taking or renewing it the holder renews it again. */
  static final Duration RENEW_AFTER = Duration.ofSeconds(1);

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
   * Whether this run may linger on: it holds the lease, now or after taking or renewing it. A store
   * that fails to answer is taken as a no: the run has published what it was woken for, and the
   * next commit's wake-up starts a run that asks again.
   */
  boolean hold() {
    Instant now = clock.instant();
    if (renewAt != null && now.isBefore(renewAt)) {
      return true;
    }
    boolean held;
    try {
      held = store.holdLease(OutboxStore.WAKE_LINGER_LEASE, owner, now, now.plus(TERM));
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
      // Not this run's failure: its rows are recorded, and the lease runs out after TERM.
      log.warn(
          "could not give back the lease of the lingering woken run; it runs out by itself",
          Map.of("reason", String.valueOf(e.getMessage()), "termMs", TERM.toMillis()));
    }
  }
}
