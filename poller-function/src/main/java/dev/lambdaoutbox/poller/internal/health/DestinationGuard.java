package dev.lambdaoutbox.poller.internal.health;

import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.log.LogFields;
import dev.lambdaoutbox.store.DestinationHealthStore;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Keeps the poller off destinations that are down, through the health table every poller shares
 * ({@link DestinationHealthStore}): decides per destination whether its rows are sent, wait, or
 * carry a probe; records what publishing showed; and says so in the logs, once per change (a
 * misconfigured destination is an ERROR when it is first found, not at every probe).
 */
public final class DestinationGuard {
  /** What to do with a destination's rows this round. */
  public sealed interface Decision {}

  /** Healthy: send its rows. */
  public record Send() implements Decision {}

  /**
   * Down and not due for a probe (or another poller probes it): its rows wait for {@code health}.
   */
  public record Wait(DestinationHealth health) implements Decision {}

  /** Down, and this poller probes it now: one small batch goes; the rest wait for its verdict. */
  public record Probe(DestinationHealth health) implements Decision {}

  private final DestinationHealthStore store;
  private final ProbeSchedule schedule;
  private final JsonLogger log;

  public DestinationGuard(DestinationHealthStore store, ProbeSchedule schedule, JsonLogger log) {
    this.store = Objects.requireNonNull(store, "store");
    this.schedule = Objects.requireNonNull(schedule, "schedule");
    this.log = log.forClass(DestinationGuard.class);
  }

  /** Every destination marked down, by destination (one query). */
  public Map<String, DestinationHealth> read() {
    return store.all();
  }

  /** The decision for {@code destination}, given its row of {@link #read} (null: healthy). */
  public Decision decide(String destination, DestinationHealth health, Instant now) {
    if (health == null) {
      return new Send();
    }
    if (!health.probeDue(now)) {
      return new Wait(health);
    }
    Instant next = now.plus(schedule.interval(health.failedProbes() + 1));
    DestinationHealth moved = withNextProbe(health, next, now);
    return store.claimProbe(destination, now, next) ? new Probe(moved) : new Wait(moved);
  }

  /** The probe went through: the destination is healthy again. */
  public void probeSucceeded(DestinationHealth health, Instant now) {
    if (store.markHealthy(health.destination())) {
      log.info(
          "destination available again; its rows are published",
          LogFields.of(
              "destination", health.destination(),
              "downSince", health.downSince().toString(),
              "downSeconds", Duration.between(health.downSince(), now).toSeconds(),
              "failedProbes", health.failedProbes()));
    }
  }

  /** The probe failed: the row as it now stands (due for its next probe). */
  public DestinationHealth probeFailed(DestinationHealth health, Failure failure, Instant now) {
    String destination = health.destination();
    Optional<DestinationHealthStore.ProbeFailed> recorded =
        store.probeFailed(destination, state(failure), failure.code(), failure.reason(), now);
    if (recorded.isEmpty()) {
      return markDown(destination, failure, now); // a concurrent probe found it up meanwhile
    }
    DestinationHealth before = recorded.get().before();
    DestinationHealth after = recorded.get().after();
    if (after.state() == DestinationState.MISCONFIGURED
        && before.state() != DestinationState.MISCONFIGURED) {
      logMisconfigured(after);
    } else {
      log.info(
          "probe failed; the destination stays down and its rows keep waiting",
          LogFields.of(
              "destination", destination,
              "state", after.state().name(),
              "errorCode", failure.code(),
              "reason", failure.reason(),
              "failedProbes", after.failedProbes(),
              "nextProbeAt", after.nextProbeAt().toString()));
    }
    return after;
  }

  /**
   * A publish showed {@code destination} down: marks it so (keeping the schedule of a poller that
   * marked it first) and returns its row.
   */
  public DestinationHealth markDown(String destination, Failure failure, Instant now) {
    DestinationHealthStore.MarkedDown marked =
        store.markDown(
            destination,
            state(failure),
            failure.code(),
            failure.reason(),
            now,
            now.plus(schedule.interval(1)));
    DestinationHealth health = marked.health();
    if (marked.inserted()) {
      if (health.state() == DestinationState.MISCONFIGURED) {
        logMisconfigured(health);
      } else {
        log.warn(
            "destination unavailable; its rows wait without spending retries, and it is probed"
                + " at growing intervals",
            LogFields.of(
                "destination", destination,
                "errorCode", failure.code(),
                "reason", failure.reason(),
                "nextProbeAt", health.nextProbeAt().toString()));
      }
    }
    return health;
  }

  private void logMisconfigured(DestinationHealth health) {
    log.error(
        "destination misconfigured; its rows wait without spending retries until it is fixed",
        LogFields.of(
            "destination", health.destination(),
            "errorCode", health.errorCode(),
            "reason", String.valueOf(health.errorReason()),
            "fix", MisconfigurationAdvice.fix(health.destination(), health.errorCode()),
            "nextProbeAt", health.nextProbeAt().toString()),
        null);
  }

  private static DestinationState state(Failure failure) {
    return failure.scope() == Failure.Scope.DESTINATION_MISCONFIGURED
        ? DestinationState.MISCONFIGURED
        : DestinationState.UNAVAILABLE;
  }

  private static DestinationHealth withNextProbe(DestinationHealth h, Instant next, Instant now) {
    return new DestinationHealth(
        h.destination(),
        h.state(),
        h.errorCode(),
        h.errorReason(),
        h.downSince(),
        h.failedProbes(),
        next,
        now);
  }
}
