package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.health.DestinationGuard;
import dev.lambdaoutbox.poller.internal.publish.BatchPlanner;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.store.model.DestinationHealth;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Publishes messages as their destinations' health allows ({@link DestinationGuard}), reading the
 * health table once per call: a healthy destination's messages are sent; a down one's wait; one
 * whose probe is due, and won by this poller, gets one small batch first and the rest only if it
 * went through. A destination a call shows down is marked so, and its rows wait, no retry spent.
 */
final class GuardedPublishing {
  private final DestinationGuard guard;
  private final MessagePublisher publisher;
  private final Clock clock;

  GuardedPublishing(DestinationGuard guard, MessagePublisher publisher, Clock clock) {
    this.guard = Objects.requireNonNull(guard, "guard");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A destination whose probe this poller sends: its probe batch, and the rest behind it. */
  private record Probing(
      DestinationBatch batch,
      DestinationHealth health,
      List<OutboundMessage> probe,
      List<OutboundMessage> rest) {}

  /**
   * Publishes {@code messages} of {@code round}, adding each one to its destination's batch and its
   * delivery to the round.
   */
  void publish(Round round, List<OutboundMessage> messages, PublishGate gate) {
    if (messages.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    Map<String, DestinationHealth> health = guard.read();
    List<OutboundMessage> first = new ArrayList<>();
    List<Probing> probes = new ArrayList<>();
    BatchPlanner.byDestination(messages)
        .forEach(
            (destination, given) -> {
              DestinationBatch batch = round.batch(destination);
              batch.add(given);
              switch (guard.decide(destination, health.get(destination), now)) {
                case DestinationGuard.Send send -> first.addAll(given);
                case DestinationGuard.Wait wait -> {
                  batch.waitFor(wait.health());
                  round.notAttempted(given, Delivery.Why.DESTINATION_DOWN, "destination down");
                }
                case DestinationGuard.Probe probe -> {
                  int end = BatchPlanner.nextBatchEnd(given, 0);
                  probes.add(
                      new Probing(
                          batch,
                          probe.health(),
                          given.subList(0, end),
                          given.subList(end, given.size())));
                  first.addAll(given.subList(0, end));
                }
              }
            });

    Map<UUID, Delivery> sent = new LinkedHashMap<>();
    call(first, gate, sent);
    List<OutboundMessage> second = new ArrayList<>();
    for (Probing probing : probes) {
      second.addAll(afterProbe(probing, sent, round));
    }
    call(second, gate, sent);
    sent.values().forEach(round::add);
    markDown(messages, sent, round);
  }

  private void call(List<OutboundMessage> messages, PublishGate gate, Map<UUID, Delivery> sent) {
    if (!messages.isEmpty()) {
      publisher.publish(messages, gate).forEach(d -> sent.put(d.id(), d));
    }
  }

  /** Marks down each destination healthy at the start of the round that a call showed down. */
  private void markDown(List<OutboundMessage> messages, Map<UUID, Delivery> sent, Round round) {
    Map<UUID, String> destinationOf = new HashMap<>();
    messages.forEach(m -> destinationOf.put(m.id(), m.destination()));
    for (Delivery d : sent.values()) {
      if (d instanceof Delivery.Failed f && f.failure().destinationDown()) {
        DestinationBatch batch = round.batch(destinationOf.get(d.id()));
        if (!batch.waits()) {
          batch.waitFor(guard.markDown(batch.destination(), f.failure(), clock.instant()));
        }
      }
    }
  }

  /**
   * The probe's verdict: through, the destination is healthy again and the rest of its rows are to
   * be sent (returned; a FIFO group that failed in the probe is held back); down still, or not sent
   * at all, the rest wait.
   */
  private List<OutboundMessage> afterProbe(Probing probing, Map<UUID, Delivery> sent, Round round) {
    Failure downFailure = null;
    boolean attempted = false;
    Set<String> failedGroups = new HashSet<>();
    for (OutboundMessage m : probing.probe()) {
      Delivery d = sent.get(m.id());
      attempted |= !(d instanceof Delivery.NotAttempted);
      if (d instanceof Delivery.Failed f && f.failure().destinationDown() && downFailure == null) {
        downFailure = f.failure();
      }
      if (!(d instanceof Delivery.Sent)) {
        failedGroups.add(m.messageGroupId());
      }
    }
    if (downFailure != null) {
      probing.batch().waitFor(guard.probeFailed(probing.health(), downFailure, clock.instant()));
      round.notAttempted(
          probing.rest(), Delivery.Why.DESTINATION_DOWN, "destination down: probe failed");
      return List.of();
    }
    if (!attempted) {
      round.notAttempted(
          probing.rest(), Delivery.Why.TIME_SHORT, "not sent: the probe was not sent");
      return List.of();
    }
    guard.probeSucceeded(probing.health(), clock.instant());
    List<OutboundMessage> toSend = new ArrayList<>(probing.rest().size());
    for (OutboundMessage m : probing.rest()) {
      if (m.fifo() && failedGroups.contains(m.messageGroupId())) {
        round.add(Delivery.NotAttempted.heldBack(m.id()));
      } else {
        toSend.add(m);
      }
    }
    return toSend;
  }
}
