package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.poller.internal.claimcheck.PayloadOffloader;
import dev.lambdaoutbox.poller.internal.envelope.MessageEnvelope;
import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.health.DestinationGuard;
import dev.lambdaoutbox.poller.internal.log.CompletionLog;
import dev.lambdaoutbox.poller.internal.log.LogFields;
import dev.lambdaoutbox.poller.internal.metrics.PublishLatencies;
import dev.lambdaoutbox.poller.internal.outcome.OutcomePolicy;
import dev.lambdaoutbox.poller.internal.publish.BatchPlanner;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.DestinationKind;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.poller.internal.route.DestinationRouter;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What the poller does with the rows of one claim:
 *
 * <ol>
 *   <li>routes each row and checks it can be sent at all (a destination, a valid one, a size its
 *       destination accepts, a JSON object for an EventBridge bus); a row that cannot is its own
 *       problem and is dead-lettered. With a claim-check bucket, a payload too large for its
 *       destination (or over the threshold) is stored in S3 and the message carries a pointer
 *       ({@link PayloadOffloader}): the uploads run side by side while the other rows are sent, and
 *       the pointers go out after them, so a slow or failing bucket holds up only the rows that
 *       need it; a row whose payload could not be stored waits, and one not stored for lack of time
 *       is released;
 *   <li>reads the destination health table once, and per destination ({@link DestinationGuard}):
 *       sends the rows of a healthy one; leaves those of a down one waiting; or, when its probe is
 *       due and this poller wins it, sends one small batch first and the rest only if it went
 *       through;
 *   <li>marks down every destination a call showed down (its rows wait, no retry spent);
 *   <li>records every row's outcome in one transaction, and logs what was really applied.
 * </ol>
 *
 * <p>The last step may run on another thread ({@link #publish}, then {@link #record}), so that the
 * invocation goes on with the next batch meanwhile ({@link Pipeline}).
 */
public final class ClaimRound {
  private final DestinationRouter router;
  private final String eventSource;
  private final int busMaxEntryBytes;
  private final DestinationGuard guard;
  private final MessagePublisher publisher;
  private final OutcomePolicy policy;
  private final OutboxStore store;
  private final Clock clock;
  private final CompletionLog completionLog;
  private final JsonLogger log;
  private final PayloadOffloader offloader;
  private final MessageEnvelope envelope;

  /**
   * @param eventSource the Source of the events put on an EventBridge bus ({@code
   *     OUTBOX_EVENT_SOURCE})
   * @param busMaxEntryBytes the largest entry put on a bus ({@code
   *     OUTBOX_EVENT_BUS_MAX_ENTRY_BYTES})
   * @param offloader the claim check, which stores a payload too large for its destination in S3
   *     and sends a pointer to it; null without a claim-check bucket (such rows are dead-lettered)
   * @param envelope what the body of an SNS or SQS message is: the payload, or a CloudEvent
   */
  public ClaimRound(
      DestinationRouter router,
      String eventSource,
      int busMaxEntryBytes,
      DestinationGuard guard,
      MessagePublisher publisher,
      OutcomePolicy policy,
      OutboxStore store,
      CompletionLog completionLog,
      Clock clock,
      JsonLogger log,
      PayloadOffloader offloader,
      MessageEnvelope envelope) {
    this.offloader = offloader;
    this.envelope = Objects.requireNonNull(envelope, "envelope");
    this.router = Objects.requireNonNull(router, "router");
    this.eventSource = Objects.requireNonNull(eventSource, "eventSource");
    this.busMaxEntryBytes = busMaxEntryBytes;
    this.guard = Objects.requireNonNull(guard, "guard");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.store = Objects.requireNonNull(store, "store");
    this.completionLog = Objects.requireNonNull(completionLog, "completionLog");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = log.forClass(ClaimRound.class);
  }

  /**
   * What one round did: the store's report, the rows held back (no outcome), and the latency of
   * each row recorded as published ({@link PublishLatencies}).
   */
  public record Result(CompletionReport report, int heldBack, long[] publishLatencyMs) {}

  /**
   * A round published and decided, its outcomes not yet recorded ({@link #record}).
   *
   * @param rows the claimed rows by id
   * @param destinations each sendable row's destination
   * @param down the health row of every destination whose rows wait after this round
   * @param outcomes what to record
   * @param decidedAt when the outcomes were decided
   */
  record Decided(
      Map<UUID, OutboxMessage> rows,
      Map<UUID, String> destinations,
      Map<String, DestinationHealth> down,
      List<DeliveryOutcome> outcomes,
      int heldBack,
      Instant decidedAt) {}

  /** Publishes the claimed rows and records what became of them. */
  Result run(String owner, List<OutboxMessage> claimed, PublishGate gate) {
    return record(owner, publish(claimed, gate));
  }

  /**
   * A claimed row on its way out: sent as it is, or once the claim check has stored its payload.
   */
  private record Routed(OutboundMessage message, boolean offload) {}

  /**
   * Routes and publishes the claimed rows and decides each row's outcome; records nothing. The
   * payloads the claim check stores are uploaded side by side while the other rows are published,
   * and their pointers published after: a slow or failing bucket holds up only the rows that need
   * it (and, on a FIFO destination, those behind them in their group).
   */
  Decided publish(List<OutboxMessage> claimed, PublishGate gate) {
    Map<UUID, OutboxMessage> rows = new LinkedHashMap<>();
    Map<UUID, String> destinations = new HashMap<>();
    List<Delivery> deliveries = new ArrayList<>(claimed.size());
    List<OutboundMessage> ready = new ArrayList<>();
    List<Routed> later = new ArrayList<>();
    List<OutboundMessage> offloads = new ArrayList<>();
    Set<String> storingGroups = new HashSet<>();
    for (OutboxMessage row : claimed) {
      rows.put(row.id(), row);
      Optional<Routed> routed = sendable(row, deliveries);
      if (routed.isEmpty()) {
        continue;
      }
      OutboundMessage m = routed.get().message();
      if (routed.get().offload()) {
        offloads.add(m);
        later.add(routed.get());
        if (m.fifo()) {
          storingGroups.add(groupKey(m));
        }
      } else if (m.fifo() && storingGroups.contains(groupKey(m))) {
        later.add(routed.get()); // behind an earlier event of its group that is being stored
      } else {
        ready.add(m);
      }
    }
    PayloadOffloader.Uploads uploads =
        offloads.isEmpty() ? null : offloader.start(offloads, Codes.MESSAGE_TOO_LARGE, gate);

    Map<String, DestinationHealth> down = new HashMap<>();
    publish(ready, gate, deliveries, destinations, down);
    if (uploads != null) {
      Map<UUID, PayloadOffloader.Result> results = uploads.await();
      // A FIFO group whose earlier event was not sent holds back the rest of it, as in one call.
      Set<String> blocked = new HashSet<>();
      Map<UUID, OutboundMessage> sent = new HashMap<>();
      ready.forEach(m -> sent.put(m.id(), m));
      for (Delivery d : deliveries) {
        OutboundMessage m = sent.get(d.id());
        if (m != null && m.fifo() && !(d instanceof Delivery.Sent)) {
          blocked.add(groupKey(m));
        }
      }
      publish(stored(later, results, blocked, deliveries), gate, deliveries, destinations, down);
    }

    Instant now = clock.instant();
    List<DeliveryOutcome> outcomes = new ArrayList<>(deliveries.size());
    int heldBack = 0;
    for (Delivery delivery : deliveries) {
      OutboxMessage row = rows.get(delivery.id());
      DestinationHealth health = down.get(destinations.get(row.id()));
      policy.decide(row, delivery, health, now).ifPresent(outcomes::add);
      if (delivery instanceof Delivery.NotAttempted n && n.why() == Delivery.Why.HELD_BACK) {
        heldBack++;
      }
    }
    return new Decided(rows, destinations, down, outcomes, heldBack, now);
  }

  /**
   * Records a decided round's outcomes in one transaction and logs what was really applied. Safe to
   * call from another thread than {@link #publish}'s, one round at a time.
   */
  Result record(String owner, Decided round) {
    CompletionReport report =
        round.outcomes().isEmpty()
            ? CompletionReport.empty()
            : store.complete(owner, round.outcomes(), round.decidedAt());
    completionLog.log(round.rows(), round.destinations(), report);
    logWaiting(report, round.destinations(), round.down());
    return new Result(
        report, round.heldBack(), PublishLatencies.of(round.rows(), report, round.decidedAt()));
  }

  /**
   * The rows that waited for the claim check, in claim order, as messages to send: each stored
   * payload's message with its pointer, the rows behind it in its FIFO group; a row whose payload
   * was not stored gets its delivery, and the later rows of its FIFO group are held back, as are
   * those of the {@code blocked} groups.
   */
  private static List<OutboundMessage> stored(
      List<Routed> later,
      Map<UUID, PayloadOffloader.Result> results,
      Set<String> blocked,
      List<Delivery> deliveries) {
    List<OutboundMessage> toSend = new ArrayList<>(later.size());
    Set<String> waitingGroups = new HashSet<>(blocked);
    for (Routed routed : later) {
      OutboundMessage m = routed.message();
      if (m.fifo() && waitingGroups.contains(groupKey(m))) {
        // An earlier event of its FIFO group was not sent, or waits for the claim-check bucket.
        deliveries.add(Delivery.NotAttempted.heldBack(m.id()));
        continue;
      }
      if (routed.offload()) {
        Delivery notSent =
            switch (results.get(m.id())) {
              case PayloadOffloader.Offloaded o -> {
                m = o.message();
                yield m.tooLarge()
                    ? new Delivery.Failed(
                        m.id(), Failure.permanent(Codes.MESSAGE_TOO_LARGE, m.tooLargeReason()))
                    : null;
              }
              case PayloadOffloader.Refused r ->
                  new Delivery.Failed(m.id(), Failure.permanent(r.code(), r.reason()));
              case PayloadOffloader.Waiting w -> new Delivery.Waiting(m.id(), w.code(), w.reason());
              case PayloadOffloader.NotStarted n -> n.refusal().of(m.id());
            };
        if (notSent != null) {
          deliveries.add(notSent);
          if (m.fifo() && !(notSent instanceof Delivery.Failed)) {
            waitingGroups.add(groupKey(m));
          }
          continue;
        }
      }
      toSend.add(m);
    }
    return toSend;
  }

  /** The row as a message to send, or empty when it cannot be sent at all (a failure added). */
  private Optional<Routed> sendable(OutboxMessage row, List<Delivery> deliveries) {
    Optional<String> destination = router.route(row);
    if (destination.isEmpty()) {
      deliveries.add(
          new Delivery.Failed(
              row.id(),
              Failure.permanent(
                  Codes.NO_DESTINATION,
                  "event type '"
                      + row.eventType()
                      + "' has no destination: the row has none, no OUTBOX_ROUTES pattern"
                      + " matches, and OUTBOX_DEFAULT_DESTINATION is not set")));
      return Optional.empty();
    }
    String problem = Destinations.problemWith(destination.get());
    if (problem != null) {
      deliveries.add(
          new Delivery.Failed(
              row.id(), Failure.permanent(Codes.INVALID_DESTINATION, "destination " + problem)));
      return Optional.empty();
    }
    // The body its message carries, measured as such: the payload, or the CloudEvent around it.
    row = envelope.apply(row, destination.get());
    OutboundMessage message =
        OutboundMessage.of(row, destination.get(), eventSource, busMaxEntryBytes);
    boolean offload = offloader != null && offloader.applies(message);
    if (message.tooLarge() && !offload) {
      deliveries.add(
          new Delivery.Failed(
              row.id(), Failure.permanent(Codes.MESSAGE_TOO_LARGE, message.tooLargeReason())));
      return Optional.empty();
    }
    if (message.kind() == DestinationKind.EVENT_BUS && !message.payloadIsJsonObject()) {
      deliveries.add(
          new Delivery.Failed(
              row.id(),
              Failure.permanent(
                  Codes.DETAIL_NOT_A_JSON_OBJECT,
                  "the payload is not a JSON object, and an EventBridge event's Detail must be"
                      + " one; route this event type to an SNS topic or SQS queue, or write its"
                      + " payload as an object")));
      return Optional.empty();
    }
    return Optional.of(new Routed(message, offload));
  }

  /**
   * Publishes {@code messages} as the destinations' health allows, adding a delivery per message
   * and noting each one's destination.
   */
  private void publish(
      List<OutboundMessage> messages,
      PublishGate gate,
      List<Delivery> deliveries,
      Map<UUID, String> destinations,
      Map<String, DestinationHealth> down) {
    if (messages.isEmpty()) {
      return;
    }
    messages.forEach(m -> destinations.put(m.id(), m.destination()));
    publish(BatchPlanner.byDestination(messages), gate, deliveries, down);
  }

  /**
   * Publishes what the destinations' health allows, adding a delivery per message, and fills {@code
   * down} with the health row of every destination whose rows wait after this round.
   */
  private void publish(
      Map<String, List<OutboundMessage>> byDestination,
      PublishGate gate,
      List<Delivery> deliveries,
      Map<String, DestinationHealth> down) {
    Instant now = clock.instant();
    Map<String, DestinationHealth> health = guard.read();
    List<OutboundMessage> first = new ArrayList<>();
    Map<String, DestinationHealth> probing = new LinkedHashMap<>();
    Map<String, List<OutboundMessage>> probeBatches = new HashMap<>();
    Map<String, List<OutboundMessage>> afterProbe = new HashMap<>();
    byDestination.forEach(
        (destination, messages) -> {
          switch (guard.decide(destination, health.get(destination), now)) {
            case DestinationGuard.Send send -> first.addAll(messages);
            case DestinationGuard.Wait wait -> {
              down.put(destination, wait.health());
              notAttempted(messages, Delivery.Why.DESTINATION_DOWN, "destination down", deliveries);
            }
            case DestinationGuard.Probe probe -> {
              int end = BatchPlanner.nextBatchEnd(messages, 0);
              probing.put(destination, probe.health());
              probeBatches.put(destination, messages.subList(0, end));
              afterProbe.put(destination, messages.subList(end, messages.size()));
              first.addAll(messages.subList(0, end));
            }
          }
        });

    Map<UUID, Delivery> sent = new LinkedHashMap<>();
    if (!first.isEmpty()) {
      publisher.publish(first, gate).forEach(d -> sent.put(d.id(), d));
    }
    List<OutboundMessage> second = new ArrayList<>();
    probing.forEach(
        (destination, probeHealth) ->
            second.addAll(
                probeVerdict(
                    probeHealth,
                    probeBatches.get(destination),
                    afterProbe.get(destination),
                    sent,
                    deliveries,
                    down)));
    if (!second.isEmpty()) {
      publisher.publish(second, gate).forEach(d -> sent.put(d.id(), d));
    }
    deliveries.addAll(sent.values());

    // Destinations healthy at the start of the round that a call showed down.
    Map<UUID, String> destinationOf = new HashMap<>();
    byDestination.forEach((d, ms) -> ms.forEach(m -> destinationOf.put(m.id(), d)));
    for (Delivery d : sent.values()) {
      if (d instanceof Delivery.Failed f && f.failure().destinationDown()) {
        String destination = destinationOf.get(d.id());
        if (!down.containsKey(destination)) {
          down.put(destination, guard.markDown(destination, f.failure(), clock.instant()));
        }
      }
    }
  }

  /**
   * The probe's verdict: through, the destination is healthy again and the rest of its rows are to
   * be sent (returned; a FIFO group that failed in the probe is held back); down still, or not sent
   * at all, the rest wait.
   */
  private List<OutboundMessage> probeVerdict(
      DestinationHealth probeHealth,
      List<OutboundMessage> probe,
      List<OutboundMessage> rest,
      Map<UUID, Delivery> sent,
      List<Delivery> deliveries,
      Map<String, DestinationHealth> down) {
    Failure downFailure = null;
    boolean attempted = false;
    Set<String> failedGroups = new HashSet<>();
    for (OutboundMessage m : probe) {
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
      down.put(
          probeHealth.destination(), guard.probeFailed(probeHealth, downFailure, clock.instant()));
      notAttempted(
          rest, Delivery.Why.DESTINATION_DOWN, "destination down: probe failed", deliveries);
      return List.of();
    }
    if (!attempted) {
      notAttempted(rest, Delivery.Why.TIME_SHORT, "not sent: the probe was not sent", deliveries);
      return List.of();
    }
    guard.probeSucceeded(probeHealth, clock.instant());
    List<OutboundMessage> toSend = new ArrayList<>(rest.size());
    for (OutboundMessage m : rest) {
      if (m.fifo() && failedGroups.contains(m.messageGroupId())) {
        deliveries.add(Delivery.NotAttempted.heldBack(m.id()));
      } else {
        toSend.add(m);
      }
    }
    return toSend;
  }

  /** A FIFO group at its destination. */
  private static String groupKey(OutboundMessage m) {
    return m.destination() + "\n" + m.messageGroupId();
  }

  private static void notAttempted(
      List<OutboundMessage> messages, Delivery.Why why, String reason, List<Delivery> deliveries) {
    for (OutboundMessage m : messages) {
      deliveries.add(new Delivery.NotAttempted(m.id(), why, reason));
    }
  }

  /** One INFO line per destination whose rows were deferred this round. */
  private void logWaiting(
      CompletionReport report,
      Map<UUID, String> destinations,
      Map<String, DestinationHealth> down) {
    Map<String, Integer> waiting = new LinkedHashMap<>();
    for (Completion c : report.completions()) {
      String destination = destinations.get(c.outcome().id());
      // A row waiting for the claim-check bucket, not its destination, was logged when it failed.
      if (c.applied()
          && c.outcome() instanceof DeliveryOutcome.Defer
          && down.containsKey(destination)) {
        waiting.merge(destination, 1, Integer::sum);
      }
    }
    waiting.forEach(
        (destination, count) -> {
          DestinationHealth h = down.get(destination);
          log.info(
              "rows wait for their destination; no retry spent",
              LogFields.of(
                  "destination", destination,
                  "rows", count,
                  "state", h.state().name(),
                  "errorCode", h.errorCode(),
                  "nextProbeAt", h.nextProbeAt().toString()));
        });
  }
}
