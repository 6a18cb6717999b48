package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.DestinationState;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The destinations every poller must leave alone for now: one row per destination found down
 * ({@code outbox_destination_health}), none for a healthy one. Each method runs its own short
 * transaction; see {@link OutboxStore} for errors.
 *
 * <p>How the poller uses it: it reads the table once per claim ({@link #all}); rows routed to a
 * destination listed there are not attempted until the destination's {@code nextProbeAt}. When that
 * comes, the poller that wins {@link #claimProbe} sends one small batch: if it goes through, {@link
 * #markHealthy}; if not, {@link #probeFailed}. A destination found down by a publish is {@link
 * #markDown marked down}; a poller that finds it marked already keeps the schedule it finds.
 */
public interface DestinationHealthStore {
  /**
   * How long past its {@code nextProbeAt} a row may stay unprobed before it is stale: rows routed
   * to a down destination come due at that time, and the first poller to claim one probes it, so a
   * row nobody probes for this long has no pending rows left behind it (they were rerouted or
   * removed). Stale rows are not counted as down, and {@link #forgetStale} deletes them.
   */
  Duration STALE_AFTER = Duration.ofMinutes(15);

  /** Every destination that is down, by destination. */
  Map<String, DestinationHealth> all();

  /**
   * Marks {@code destination} down unless it is already; returns its row as it now stands, and
   * whether this call put it there. A first row is due for its first probe at {@code firstProbeAt}.
   */
  MarkedDown markDown(
      String destination,
      DestinationState state,
      String errorCode,
      String reason,
      Instant now,
      Instant firstProbeAt);

  /**
   * @param inserted true when this call marked it down; false when it was marked already (by this
   *     poller earlier, or another), whose row and schedule are kept
   */
  record MarkedDown(DestinationHealth health, boolean inserted) {}

  /**
   * Claims the probe due at {@code now}: moves {@code nextProbeAt} to {@code nextProbeAt} if it was
   * still due. Exactly one of several pollers asking at once gets true; the others find it moved.
   * False, too, when the destination is not marked down (any more).
   */
  boolean claimProbe(String destination, Instant now, Instant nextProbeAt);

  /**
   * Records a failed probe: one more failed probe, the state and error of this one. Empty when the
   * destination was no longer marked down (a concurrent probe went through).
   */
  Optional<ProbeFailed> probeFailed(
      String destination, DestinationState state, String errorCode, String reason, Instant now);

  /** The row before and after {@link #probeFailed}. */
  record ProbeFailed(DestinationHealth before, DestinationHealth after) {}

  /** A probe went through: the destination is healthy again. False when it was not marked down. */
  boolean markHealthy(String destination);

  /**
   * Deletes the rows stale at {@code now} (see {@link #STALE_AFTER}); returns how many went. A
   * destination forgotten this way that is still down is marked down again by its next failure.
   */
  int forgetStale(Instant now);
}
