package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/** A dead-letter row for seeding, with realistic defaults each test overrides as it needs. */
final class DeadLetterBuilder {
  static final Instant T0 = Instant.parse("2026-03-01T02:00:00Z");

  private UUID id = UuidV7.generate();
  private String aggregateType = "Order";
  private String aggregateId = "order-1001";
  private String eventType = "OrderPlaced";
  private String payload = "{\"orderId\":\"order-1001\",\"total\":\"42.50\"}";
  private String headers =
      "{\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}";
  private String destination = "arn:aws:sns:us-east-1:123456789012:orders";
  private String idempotencyKey;
  private Instant deadAt = T0;
  private int attempts = 8;
  private int replayCount;
  private String errorCode = "SNS_NOT_FOUND";
  private String errorReason = "Topic does not exist";

  static DeadLetterBuilder deadLetter() {
    return new DeadLetterBuilder();
  }

  DeadLetterBuilder id(UUID id) {
    this.id = id;
    return this;
  }

  DeadLetterBuilder aggregate(String type, String id) {
    this.aggregateType = type;
    this.aggregateId = id;
    return this;
  }

  DeadLetterBuilder eventType(String eventType) {
    this.eventType = eventType;
    return this;
  }

  DeadLetterBuilder payload(String payload) {
    this.payload = payload;
    return this;
  }

  DeadLetterBuilder headers(String headers) {
    this.headers = headers;
    return this;
  }

  DeadLetterBuilder destination(String destination) {
    this.destination = destination;
    return this;
  }

  DeadLetterBuilder idempotencyKey(String idempotencyKey) {
    this.idempotencyKey = idempotencyKey;
    return this;
  }

  DeadLetterBuilder deadAt(Instant deadAt) {
    this.deadAt = deadAt.truncatedTo(ChronoUnit.MICROS);
    return this;
  }

  DeadLetterBuilder attempts(int attempts) {
    this.attempts = attempts;
    return this;
  }

  DeadLetterBuilder replayCount(int replayCount) {
    this.replayCount = replayCount;
    return this;
  }

  DeadLetterBuilder error(String code, String reason) {
    this.errorCode = code;
    this.errorReason = reason;
    return this;
  }

  DeadLetter build() {
    Instant occurred = deadAt.minus(Duration.ofMinutes(30));
    return new DeadLetter(
        id,
        aggregateType,
        aggregateId,
        eventType,
        payload,
        headers,
        destination,
        idempotencyKey,
        occurred,
        occurred.plusMillis(3),
        attempts,
        replayCount,
        errorCode,
        errorReason,
        occurred.plusSeconds(1),
        deadAt.minusSeconds(1),
        deadAt);
  }
}
