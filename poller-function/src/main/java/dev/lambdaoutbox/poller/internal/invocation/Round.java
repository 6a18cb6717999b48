package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The rows of one claim on their way out: the claimed rows, a batch per destination ({@link
 * DestinationBatch}), and what became of each row, in the order it was known.
 */
final class Round {
  private final Map<UUID, OutboxMessage> rows = new LinkedHashMap<>();
  private final Map<String, DestinationBatch> batches = new LinkedHashMap<>();
  private final List<Delivery> deliveries;

  Round(List<OutboxMessage> claimed) {
    claimed.forEach(row -> rows.put(row.id(), row));
    deliveries = new ArrayList<>(claimed.size());
  }

  /** The claimed rows by id, in claim order. */
  Map<UUID, OutboxMessage> rows() {
    return Collections.unmodifiableMap(rows);
  }

  /** The batch of {@code destination}, begun empty if none is yet. */
  DestinationBatch batch(String destination) {
    return batches.computeIfAbsent(destination, DestinationBatch::new);
  }

  void add(Delivery delivery) {
    deliveries.add(delivery);
  }

  void notAttempted(List<OutboundMessage> messages, Delivery.Why why, String reason) {
    for (OutboundMessage m : messages) {
      deliveries.add(new Delivery.NotAttempted(m.id(), why, reason));
    }
  }

  List<Delivery> deliveries() {
    return Collections.unmodifiableList(deliveries);
  }

  /** Each published row's destination, by id; a row never given to one is absent. */
  Map<UUID, String> destinations() {
    Map<UUID, String> destinations = new HashMap<>();
    for (DestinationBatch batch : batches.values()) {
      batch.messages().forEach(m -> destinations.put(m.id(), batch.destination()));
    }
    return destinations;
  }

  /** The health row of every destination whose rows wait after this round. */
  Map<String, DestinationHealth> down() {
    Map<String, DestinationHealth> down = new HashMap<>();
    for (DestinationBatch batch : batches.values()) {
      if (batch.waits()) {
        down.put(batch.destination(), batch.down());
      }
    }
    return down;
  }
}
