package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.store.model.DestinationHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One destination's share of a round: the messages given to it, in claim order, and, when its rows
 * wait after the round (it was down, its probe failed, or a call showed it down), its health row.
 */
final class DestinationBatch {
  private final String destination;
  private final List<OutboundMessage> messages = new ArrayList<>();
  private DestinationHealth down;

  DestinationBatch(String destination) {
    this.destination = Objects.requireNonNull(destination, "destination");
  }

  String destination() {
    return destination;
  }

  /** Notes messages given to this destination to publish. */
  void add(List<OutboundMessage> given) {
    messages.addAll(given);
  }

  List<OutboundMessage> messages() {
    return messages;
  }

  /** Its rows wait after this round, for the probe {@code health} schedules. */
  void waitFor(DestinationHealth health) {
    down = Objects.requireNonNull(health, "health");
  }

  boolean waits() {
    return down != null;
  }

  /** Its health row when its rows wait, else null. */
  DestinationHealth down() {
    return down;
  }
}
