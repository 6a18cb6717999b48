package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.RoutingSettings;
import dev.lambdaoutbox.poller.internal.claimcheck.PayloadOffloader;
import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.health.DestinationGuard;
import dev.lambdaoutbox.poller.internal.log.CompletionLog;
import dev.lambdaoutbox.poller.internal.log.LogFields;
import dev.lambdaoutbox.poller.internal.metrics.PublishLatencies;
import dev.lambdaoutbox.poller.internal.outcome.OutcomePolicy;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * What the poller does with the rows of one claim ({@link Round}):
 *
 * <ol>
 *   <li>routes each row and checks it can be sent at all ({@link RowRouting}); a row that cannot is
 *       dead-lettered. With a claim-check bucket, the payloads it stores are uploaded side by side
 *       while the other rows are sent, and their pointers go out after them ({@link
 *       ClaimCheckQueue});
 *   <li>publishes each destination's batch as its health allows ({@link GuardedPublishing});
 *   <li>decides each row's outcome ({@link OutcomePolicy}), then records them all in one
 *       transaction and logs what was really applied.
 * </ol>
 *
 * <p>The recording may run on another thread ({@link #publish}, then {@link #record}), so that the
 * invocation goes on with the next batch meanwhile ({@link Pipeline}).
 */
public final class ClaimRound {
  private final RowRouting routing;
  private final GuardedPublishing publishing;
  private final PayloadOffloader offloader;
  private final OutcomePolicy policy;
  private final OutboxStore store;
  private final Clock clock;
  private final CompletionLog completionLog;
  private final JsonLogger log;

  /**
   * @param routing where rows go and what their messages look like there
   * @param offloader the claim check, which stores a payload too large for its destination in S3
   *     and sends a pointer to it; null without a claim-check bucket (such rows are dead-lettered)
   */
  public ClaimRound(
      RoutingSettings routing,
      DestinationGuard guard,
      MessagePublisher publisher,
      OutcomePolicy policy,
      OutboxStore store,
      CompletionLog completionLog,
      Clock clock,
      JsonLogger log,
      PayloadOffloader offloader) {
    this.routing = new RowRouting(routing, offloader);
    this.publishing = new GuardedPublishing(guard, publisher, clock);
    this.offloader = offloader;
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
   * @param destinations each published row's destination
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
   * Routes and publishes the claimed rows and decides each row's outcome; records nothing. A slow
   * or failing claim-check bucket holds up only the rows that need it (and, on a FIFO destination,
   * those behind them in their group).
   */
  Decided publish(List<OutboxMessage> claimed, PublishGate gate) {
    Round round = new Round(claimed);
    List<OutboundMessage> ready = new ArrayList<>();
    ClaimCheckQueue queue = new ClaimCheckQueue();
    for (OutboxMessage row : claimed) {
      switch (routing.route(row)) {
        case RowRouting.Unsendable u -> round.add(u.failure());
        case RowRouting.Sendable s -> {
          if (!queue.offer(s)) {
            ready.add(s.message());
          }
        }
      }
    }
    List<OutboundMessage> offloads = queue.offloads();
    PayloadOffloader.Uploads uploads =
        offloads.isEmpty() ? null : offloader.start(offloads, Codes.MESSAGE_TOO_LARGE, gate);
    publishing.publish(round, ready, gate);
    if (uploads != null) {
      publishing.publish(round, queue.toSend(uploads.await(), ready, round), gate);
    }
    return decide(round);
  }

  /** Each row's outcome, as its delivery and its destination's health have it. */
  private Decided decide(Round round) {
    Instant now = clock.instant();
    Map<UUID, OutboxMessage> rows = round.rows();
    Map<UUID, String> destinations = round.destinations();
    Map<String, DestinationHealth> down = round.down();
    List<DeliveryOutcome> outcomes = new ArrayList<>(round.deliveries().size());
    int heldBack = 0;
    for (Delivery delivery : round.deliveries()) {
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
