package dev.lambdaoutbox.poller.internal.publish;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts messages into batches: one destination per batch, at most {@value #MAX_ENTRIES} entries and
 * at most the destination's limit in bytes in all ({@link DestinationKind#maxBytes()}: 256 KiB for
 * SNS, 1 MiB for SQS and EventBridge), in the order given (claim order, which FIFO destinations
 * rely on).
 */
public final class BatchPlanner {
  /** PublishBatch, SendMessageBatch and PutEvents take at most ten entries. */
  public static final int MAX_ENTRIES = 10;

  private BatchPlanner() {}

  /** Messages grouped by destination; destinations and messages keep their first-seen order. */
  public static Map<String, List<OutboundMessage>> byDestination(List<OutboundMessage> messages) {
    Map<String, List<OutboundMessage>> groups = new LinkedHashMap<>();
    for (OutboundMessage m : messages) {
      groups.computeIfAbsent(m.destination(), d -> new ArrayList<>()).add(m);
    }
    return groups;
  }

  /**
   * One destination's messages as consecutive batches. Each message must itself fit ({@link
   * OutboundMessage#tooLarge()} false).
   */
  public static List<List<OutboundMessage>> batches(List<OutboundMessage> messages) {
    List<List<OutboundMessage>> batches = new ArrayList<>();
    int from = 0;
    while (from < messages.size()) {
      int to = nextBatchEnd(messages, from);
      batches.add(List.copyOf(messages.subList(from, to)));
      from = to;
    }
    return batches;
  }

  /** The end (exclusive) of the largest batch that starts at {@code from}. */
  public static int nextBatchEnd(List<OutboundMessage> messages, int from) {
    if (from >= messages.size()) {
      return from;
    }
    long bytes = 0;
    int to = from;
    while (to < messages.size() && to - from < MAX_ENTRIES) {
      OutboundMessage m = messages.get(to);
      if (m.tooLarge()) {
        throw new IllegalArgumentException(
            "message " + m.id() + " has " + m.sizeBytes() + " bytes; it cannot be batched");
      }
      if (bytes + m.sizeBytes() > m.batchMaxBytes()) {
        break;
      }
      bytes += m.sizeBytes();
      to++;
    }
    return to;
  }
}
