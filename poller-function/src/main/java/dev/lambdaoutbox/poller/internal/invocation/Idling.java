package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.IdleSettings;
import dev.lambdaoutbox.poller.TimingSettings;
import dev.lambdaoutbox.poller.internal.rate.Sleeper;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What a run does after a short claim: stop, or wait and claim again, at the poll interval or,
 * woken after a commit, while it lingers ({@link Linger}).
 */
final class Idling {
  /** The longest quiet period a wake-up may ask a run to cover. */
  static final Duration MAX_QUIET = Duration.ofSeconds(60);

  private final Duration pollInterval;
  private final Duration wakeLinger;
  private final Duration safetyMargin;
  private final Duration publishTimeout;
  private final Sleeper sleeper;
  private final Clock clock;
  private final JsonLogger log;

  Idling(IdleSettings idle, TimingSettings timing, Sleeper sleeper, Clock clock, JsonLogger log) {
    this.pollInterval = idle.pollInterval();
    this.wakeLinger = idle.wakeLinger();
    this.safetyMargin = timing.safetyMargin();
    this.publishTimeout = timing.publishTimeout();
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log");
  }

  /**
   * A woken run's linger, its promise bounded by the last moment the run may claim; says so when
   * that cuts the wake-up's quiet period short.
   */
  Linger linger(InvocationBudget budget, Duration quiet) {
    Duration covered = quiet.compareTo(MAX_QUIET) > 0 ? MAX_QUIET : quiet;
    Instant deadline = clock.instant().plus(budget.claimingTime());
    Linger linger = new Linger(clock, wakeLinger, covered, deadline);
    if (linger.cutShort()) {
      log.warn(
          "the wake-up's quiet period runs past the time this run may claim; commits at its end"
              + " wait for the next wake-up or the schedule: raise the function timeout",
          Map.of(
              "quietMs", quiet.toMillis(),
              "remainingMs", budget.remainingMillis(),
              "safetyMarginMs", safetyMargin.toMillis(),
              "publishTimeoutMs", publishTimeout.toMillis()));
    }
    return linger;
  }

  /**
   * After a short claim: stop, or wait the poll interval (lingering: {@link Linger#POLL_INTERVAL},
   * if no other woken run lingers) when there is time.
   */
  String idle(InvocationBudget budget, Linger linger, LingerLease lease, Instant claimedAt) {
    Duration interval;
    if (linger != null) {
      String stop = linger.stop(claimedAt);
      if (stop != null) {
        return stop;
      }
      if (!lease.hold(linger.promise(), linger.covers())) {
        return "anotherLingers";
      }
      interval = Linger.POLL_INTERVAL;
    } else {
      interval = pollInterval;
      if (interval.isZero()) {
        return "drained";
      }
    }
    if (!budget.maySleep(interval)) {
      return "time";
    }
    try {
      if (linger != null) {
        sleeper.sleepUntil(clock.instant().plus(interval)); // a test's clock moves instead
      } else {
        Thread.sleep(interval.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    return null;
  }
}
