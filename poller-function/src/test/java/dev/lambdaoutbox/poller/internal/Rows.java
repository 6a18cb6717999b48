package dev.lambdaoutbox.poller.internal;

import dev.lambdaoutbox.core.Utf8;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** Claimed rows for unit tests. */
public final class Rows {
  public static final Instant OCCURRED = Instant.parse("2026-03-01T10:15:30.123456Z");

  private Rows() {}

  public static OutboxMessage row(String eventType, String payload) {
    return row(UUID.randomUUID(), "order", "o-1", eventType, payload, Map.of(), null, 0);
  }

  public static OutboxMessage row(
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      Map<String, String> headers,
      String destination,
      int retryCount) {
    return new OutboxMessage(
        id,
        aggregateType,
        aggregateId,
        eventType,
        payload,
        headers,
        destination,
        null,
        OCCURRED,
        OCCURRED,
        retryCount,
        0,
        null,
        Utf8.length(payload));
  }

  public static OutboundMessage message(String destination, int payloadChars) {
    return message(destination, "o-1", payloadChars);
  }

  public static OutboundMessage message(String destination, String aggregateId, int payloadChars) {
    String payload = "\"" + "x".repeat(Math.max(0, payloadChars - 2)) + "\"";
    return OutboundMessage.of(
        row(UUID.randomUUID(), "order", aggregateId, "order.created", payload, Map.of(), null, 0),
        destination);
  }
}
