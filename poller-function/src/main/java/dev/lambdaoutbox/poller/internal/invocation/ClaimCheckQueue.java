package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.internal.claimcheck.PayloadOffloader;
import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The rows of a round that wait for the claim check, in claim order: those whose payload it stores,
 * and, on a FIFO destination, the rows behind them in their group, which may not overtake them.
 * They go out after the other rows, so a slow or failing bucket holds up only the rows that need
 * it.
 */
final class ClaimCheckQueue {
  private final List<RowRouting.Sendable> waiting = new ArrayList<>();
  private final List<OutboundMessage> offloads = new ArrayList<>();
  private final Set<String> storingGroups = new HashSet<>();

  /** Queues {@code row} if it waits for the claim check; false when it may be sent at once. */
  boolean offer(RowRouting.Sendable row) {
    OutboundMessage m = row.message();
    if (row.offload()) {
      offloads.add(m);
      waiting.add(row);
      if (m.fifo()) {
        storingGroups.add(groupKey(m));
      }
      return true;
    }
    if (m.fifo() && storingGroups.contains(groupKey(m))) {
      waiting.add(row); // behind an earlier event of its group that is being stored
      return true;
    }
    return false;
  }

  /** The messages whose payload the claim check is to store. */
  List<OutboundMessage> offloads() {
    return offloads;
  }

  /**
   * The queued rows as messages to send once the uploads are done: each stored payload's message
   * with its pointer, the rows behind it in its FIFO group. A row whose payload was not stored gets
   * its delivery in {@code round}, and the later rows of its FIFO group are held back, as are those
   * of the FIFO groups in which a row sent at once ({@code sentFirst}) did not go through.
   */
  List<OutboundMessage> toSend(
      Map<UUID, PayloadOffloader.Result> results, List<OutboundMessage> sentFirst, Round round) {
    List<OutboundMessage> toSend = new ArrayList<>(waiting.size());
    Set<String> waitingGroups = unsentGroups(sentFirst, round.deliveries());
    for (RowRouting.Sendable row : waiting) {
      OutboundMessage m = row.message();
      if (m.fifo() && waitingGroups.contains(groupKey(m))) {
        // An earlier event of its FIFO group was not sent, or waits for the claim-check bucket.
        round.add(Delivery.NotAttempted.heldBack(m.id()));
        continue;
      }
      if (row.offload()) {
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
          round.add(notSent);
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

  /** The FIFO groups in which a message of {@code sent} was not sent, as in one call. */
  private static Set<String> unsentGroups(List<OutboundMessage> sent, List<Delivery> deliveries) {
    Map<UUID, OutboundMessage> byId = new HashMap<>();
    sent.forEach(m -> byId.put(m.id(), m));
    Set<String> groups = new HashSet<>();
    for (Delivery d : deliveries) {
      OutboundMessage m = byId.get(d.id());
      if (m != null && m.fifo() && !(d instanceof Delivery.Sent)) {
        groups.add(groupKey(m));
      }
    }
    return groups;
  }

  /** A FIFO group at its destination. */
  private static String groupKey(OutboundMessage m) {
    return m.destination() + "\n" + m.messageGroupId();
  }
}
