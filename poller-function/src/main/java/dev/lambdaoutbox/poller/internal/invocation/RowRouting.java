package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.poller.RoutingSettings;
import dev.lambdaoutbox.poller.internal.claimcheck.PayloadOffloader;
import dev.lambdaoutbox.poller.internal.envelope.MessageEnvelope;
import dev.lambdaoutbox.poller.internal.failure.Codes;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.DestinationKind;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.route.DestinationRouter;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.util.Objects;
import java.util.Optional;

/**
 * Routes a claimed row and checks it can be sent at all: a destination, a valid one, a size its
 * destination accepts (or a claim check to store it), a JSON object for an EventBridge bus. A row
 * that cannot be sent is its own problem, and is dead-lettered.
 */
final class RowRouting {
  /** What a claimed row is to the round. */
  sealed interface Routed {}

  /** To send: as it is, or once the claim check has stored its payload ({@code offload}). */
  record Sendable(OutboundMessage message, boolean offload) implements Routed {}

  /** Not sendable at all: its permanent failure. */
  record Unsendable(Delivery.Failed failure) implements Routed {}

  private final DestinationRouter router;
  private final String eventSource;
  private final int busMaxEntryBytes;
  private final PayloadOffloader offloader;
  private final MessageEnvelope envelope;

  /**
   * @param offloader the claim check; null without a claim-check bucket (rows too large for their
   *     destination are then unsendable)
   */
  RowRouting(RoutingSettings routing, PayloadOffloader offloader) {
    this.router = new DestinationRouter(routing.routes(), routing.defaultDestination());
    this.eventSource = routing.eventSource();
    this.busMaxEntryBytes = routing.eventBusMaxEntryBytes();
    this.offloader = offloader;
    this.envelope = Objects.requireNonNull(routing.envelope(), "envelope");
  }

  Routed route(OutboxMessage row) {
    Optional<String> destination = router.route(row);
    if (destination.isEmpty()) {
      return unsendable(
          row,
          Codes.NO_DESTINATION,
          "event type '"
              + row.eventType()
              + "' has no destination: the row has none, no OUTBOX_ROUTES pattern"
              + " matches, and OUTBOX_DEFAULT_DESTINATION is not set");
    }
    String problem = Destinations.problemWith(destination.get());
    if (problem != null) {
      return unsendable(row, Codes.INVALID_DESTINATION, "destination " + problem);
    }
    // The body its message carries, measured as such: the payload, or the CloudEvent around it.
    row = envelope.apply(row, destination.get());
    OutboundMessage message =
        OutboundMessage.of(row, destination.get(), eventSource, busMaxEntryBytes);
    boolean offload = offloader != null && offloader.applies(message);
    if (message.tooLarge() && !offload) {
      return unsendable(row, Codes.MESSAGE_TOO_LARGE, message.tooLargeReason());
    }
    if (message.kind() == DestinationKind.EVENT_BUS && !message.payloadIsJsonObject()) {
      return unsendable(
          row,
          Codes.DETAIL_NOT_A_JSON_OBJECT,
          "the payload is not a JSON object, and an EventBridge event's Detail must be"
              + " one; route this event type to an SNS topic or SQS queue, or write its"
              + " payload as an object");
    }
    return new Sendable(message, offload);
  }

  private static Unsendable unsendable(OutboxMessage row, String code, String reason) {
    return new Unsendable(new Delivery.Failed(row.id(), Failure.permanent(code, reason)));
  }
}
