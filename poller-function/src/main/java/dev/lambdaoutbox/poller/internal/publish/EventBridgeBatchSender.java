package dev.lambdaoutbox.poller.internal.publish;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResultEntry;

/**
 * Puts a batch on an EventBridge event bus with {@code PutEvents}: per entry, Source the configured
 * {@code OUTBOX_EVENT_SOURCE}, DetailType the event type, Detail the payload, Time when the event
 * occurred, TraceHeader the row's {@value OutboundMessage#TRACE_HEADER} header if it has one.
 *
 * <p>PutEvents accepts events for a bus that does not exist and drops them, so the first call to
 * each bus is preceded by {@code DescribeEventBus}: a bus that does not exist, or that the poller
 * may not see, fails that call with the service's code ({@code ResourceNotFoundException}, {@code
 * AccessDeniedException}), which makes the bus misconfigured, its rows waiting, as a missing topic
 * or queue does. A bus once found is not looked up again by this process.
 *
 * <p>PutEvents answers entry by entry in request order: an entry with an {@code EventId} went
 * through, one with an {@code ErrorCode} failed; the answer is returned keyed by event id, as SNS
 * and SQS key theirs, so that {@link BatchReconciler} judges all three alike.
 */
public final class EventBridgeBatchSender implements BatchSender {
  private final Supplier<? extends EventBridgeClient> factory;
  private volatile EventBridgeClient events;
  private final Set<String> found = ConcurrentHashMap.newKeySet();

  /** With the client {@code factory} builds on the first call (most pollers never put events). */
  public EventBridgeBatchSender(Supplier<? extends EventBridgeClient> factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  private EventBridgeClient events() {
    EventBridgeClient built = events;
    if (built == null) {
      synchronized (this) {
        built = events;
        if (built == null) {
          built = Objects.requireNonNull(factory.get(), "events");
          events = built;
        }
      }
    }
    return built;
  }

  @Override
  public BatchResponse send(String busArn, List<OutboundMessage> batch) {
    List<PutEventsRequestEntry> entries = batch.stream().map(m -> entry(busArn, m)).toList();
    if (!found.contains(busArn)) {
      events().describeEventBus(r -> r.name(busArn)); // throws when the bus is missing or hidden
      found.add(busArn);
    }
    PutEventsResponse response = events().putEvents(r -> r.entries(entries));
    Set<String> successful = new HashSet<>();
    Map<String, BatchResponse.EntryError> failed = new HashMap<>();
    List<PutEventsResultEntry> results = response.entries();
    for (int i = 0; i < batch.size() && i < results.size(); i++) {
      String id = batch.get(i).id().toString();
      PutEventsResultEntry result = results.get(i);
      if (result.errorCode() != null) {
        failed.put(
            id, new BatchResponse.EntryError(result.errorCode(), result.errorMessage(), null));
      } else if (result.eventId() != null) {
        successful.add(id);
      }
      // Neither: the entry is missing from the response, and BatchReconciler says so.
    }
    return new BatchResponse(successful, failed);
  }

  private static PutEventsRequestEntry entry(String busArn, OutboundMessage m) {
    return PutEventsRequestEntry.builder()
        .eventBusName(busArn)
        .source(m.eventSource())
        .detailType(m.row().eventType())
        .detail(m.body())
        .time(m.row().occurredAt())
        .traceHeader(m.traceHeader())
        .build();
  }
}
