package dev.lambdaoutbox.writer;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.EventRules;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.writer.internal.EventFields;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One event to publish, immutable and valid by construction: {@link Builder#build()} refuses bad
 * input with an {@link InvalidOutboxEventException} that names the field.
 *
 * <pre>{@code
 * OutboxEvent event = OutboxEvent.builder()
 *     .aggregateType("reservation")
 *     .aggregateId(reservationId)
 *     .eventType("reservation.created")
 *     .payload(new ReservationCreated(reservationId, shopId))   // or .payload("{\"id\":42}")
 *     .header("traceparent", traceparent)
 *     .build();
 * }</pre>
 *
 * <p>An event may wait for its time: {@link Builder#delay} or {@link Builder#notBefore}. It is not
 * published before then, on the database's clock, and with per-aggregate ordering the events of its
 * aggregate written after it wait behind it.
 */
public final class OutboxEvent {
  /** Longest aggregate type, aggregate id, event type or idempotency key the tables hold. */
  public static final int MAX_NAME_LENGTH = EventRules.MAX_NAME_LENGTH;

  /** Longest destination (topic ARN or queue URL) the tables hold. */
  public static final int MAX_DESTINATION_LENGTH = EventRules.MAX_DESTINATION_LENGTH;

  /**
   * The longest an event may wait for its time ({@link Builder#delay}, {@link Builder#notBefore}):
   * 366 days, a year's schedule. A longer wait is more likely a unit mistaken (milliseconds for
   * seconds) than a plan, and a row that waits that long is better kept by the application.
   */
  public static final Duration MAX_DELAY = Duration.ofDays(366);

  private final UUID id;
  private final String aggregateType;
  private final String aggregateId;
  private final String eventType;
  private final String payload;
  private final Map<String, String> headers;
  private final String destination;
  private final String idempotencyKey;
  private final Instant occurredAt;
  private final Duration delay;
  private final Instant notBefore;

  private OutboxEvent(Builder b) {
    this.id = b.id != null ? b.id : UuidV7.generate();
    this.aggregateType = EventFields.name("aggregateType", b.aggregateType);
    this.aggregateId = EventFields.name("aggregateId", b.aggregateId);
    this.eventType = EventFields.name("eventType", b.eventType);
    this.payload = EventFields.payload(b.payloadJson);
    this.headers = Collections.unmodifiableMap(EventFields.headers(b.headers));
    this.destination = EventFields.destination(b.destination);
    this.idempotencyKey =
        b.idempotencyKey == null ? null : EventFields.name("idempotencyKey", b.idempotencyKey);
    this.occurredAt =
        (b.occurredAt != null ? b.occurredAt : Instant.now()).truncatedTo(ChronoUnit.MICROS);
    this.delay = EventFields.delay(b.delay, MAX_DELAY);
    this.notBefore = EventFields.notBefore(b.notBefore, MAX_DELAY);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this event's values, to make a changed copy. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.id = id;
    b.aggregateType = aggregateType;
    b.aggregateId = aggregateId;
    b.eventType = eventType;
    b.payloadJson = payload;
    b.headers.putAll(headers);
    b.destination = destination;
    b.idempotencyKey = idempotencyKey;
    b.occurredAt = occurredAt;
    b.delay = delay;
    b.notBefore = notBefore;
    return b;
  }

  /**
   * The event id: a UUIDv7 unless one was given. Consumers see it as the {@code eventId} attribute.
   */
  public UUID id() {
    return id;
  }

  public String aggregateType() {
    return aggregateType;
  }

  public String aggregateId() {
    return aggregateId;
  }

  public String eventType() {
    return eventType;
  }

  /** The payload as JSON text, exactly as it will be published. */
  public String payload() {
    return payload;
  }

  /** Headers, published as message attributes; {@code traceparent} carries W3C trace context. */
  public Map<String, String> headers() {
    return headers;
  }

  /** An SNS topic ARN or SQS queue URL that overrides routing for this event. */
  public Optional<String> destination() {
    return Optional.ofNullable(destination);
  }

  public Optional<String> idempotencyKey() {
    return Optional.ofNullable(idempotencyKey);
  }

  /** When the business fact happened; microsecond precision, as stored. */
  public Instant occurredAt() {
    return occurredAt;
  }

  /**
   * How long after it is written, on the database's clock, the event is published at the earliest;
   * empty when it is due at once or waits for {@link #notBefore()} instead.
   */
  public Optional<Duration> delay() {
    return Optional.ofNullable(delay);
  }

  /**
   * The time, on the database's clock, before which the event is not published; empty when it is
   * due at once or waits for a {@link #delay()} instead. A time already past when the event is
   * written means now.
   */
  public Optional<Instant> notBefore() {
    return Optional.ofNullable(notBefore);
  }

  /** Whether the event waits for a time: a {@link #delay()} or a {@link #notBefore()}. */
  public boolean waitsForTime() {
    return delay != null || notBefore != null;
  }

  /**
   * The String message attributes this event is published with, in the order they are sent: the
   * outbox's five, then the headers ({@link OutboxMessageAttributes}).
   */
  public Map<String, String> messageAttributes() {
    return OutboxMessageAttributes.of(
        id, eventType, aggregateType, aggregateId, occurredAt, headers);
  }

  /**
   * The size SNS and SQS count for the message this event becomes: its payload and its attributes
   * ({@link MessageSize}).
   */
  public long messageSize() {
    return MessageSize.of(payload, messageAttributes());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutboxEvent e
        && id.equals(e.id)
        && aggregateType.equals(e.aggregateType)
        && aggregateId.equals(e.aggregateId)
        && eventType.equals(e.eventType)
        && payload.equals(e.payload)
        && headers.equals(e.headers)
        && Objects.equals(destination, e.destination)
        && Objects.equals(idempotencyKey, e.idempotencyKey)
        && occurredAt.equals(e.occurredAt)
        && Objects.equals(delay, e.delay)
        && Objects.equals(notBefore, e.notBefore);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  @Override
  public String toString() {
    return "OutboxEvent{id="
        + id
        + ", eventType="
        + eventType
        + ", aggregate="
        + aggregateType
        + "/"
        + aggregateId
        + ", payloadChars="
        + payload.length()
        + "}";
  }

  /** Builds an {@link OutboxEvent}; not thread-safe. */
  public static final class Builder {
    private UUID id;
    private String aggregateType;
    private String aggregateId;
    private String eventType;
    private String payloadJson;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private String destination;
    private String idempotencyKey;
    private Instant occurredAt;
    private Duration delay;
    private Instant notBefore;

    private Builder() {}

    /** The event id; a UUIDv7 is generated when none is given. */
    public Builder id(UUID id) {
      this.id = id;
      return this;
    }

    public Builder aggregateType(String aggregateType) {
      this.aggregateType = aggregateType;
      return this;
    }

    public Builder aggregateId(String aggregateId) {
      this.aggregateId = aggregateId;
      return this;
    }

    public Builder eventType(String eventType) {
      this.eventType = eventType;
      return this;
    }

    /** The payload as JSON text, published byte for byte as given. */
    public Builder payload(String json) {
      this.payloadJson = json;
      return this;
    }

    /** The payload as an object, serialized with a default Jackson {@link ObjectMapper}. */
    public Builder payload(Object value) {
      return payload(value, JsonSupport.mapper());
    }

    /** The payload as an object, serialized with the given {@link ObjectMapper}. */
    public Builder payload(Object value, ObjectMapper mapper) {
      this.payloadJson = EventFields.json(value, mapper);
      return this;
    }

    /** Adds one header (replacing one of the same name). */
    public Builder header(String name, String value) {
      this.headers.put(name, value);
      return this;
    }

    /** Replaces all headers. */
    public Builder headers(Map<String, String> headers) {
      this.headers.clear();
      this.headers.putAll(headers);
      return this;
    }

    /**
     * An SNS topic ARN, SQS queue URL or EventBridge bus ARN for this event, overriding routing.
     */
    public Builder destination(String destination) {
      this.destination = destination;
      return this;
    }

    /**
     * A key no other event may use within the idempotency window (24 hours by default), e.g. the id
     * of the client request that caused the event; see {@link DuplicateIdempotencyKeyException}.
     */
    public Builder idempotencyKey(String idempotencyKey) {
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    /** When the business fact happened; now when not given. */
    public Builder occurredAt(Instant occurredAt) {
      this.occurredAt = occurredAt;
      return this;
    }

    /**
     * Publishes the event no earlier than {@code delay} after it is written, on the database's
     * clock: the transaction's INSERT reads the database's time and adds it, so no application
     * host's clock decides. Zero or less: at once. At most {@link #MAX_DELAY}, or {@link #build()}
     * refuses the event naming {@code delay}. Replaces a {@link #notBefore} given before.
     */
    public Builder delay(Duration delay) {
      this.delay = Objects.requireNonNull(delay, "delay");
      this.notBefore = null;
      return this;
    }

    /**
     * Publishes the event no earlier than {@code notBefore}, compared with the database's clock; a
     * time already past when it is written means at once. At most {@link #MAX_DELAY} ahead of this
     * host's clock, or {@link #build()} refuses the event naming {@code notBefore}. Replaces a
     * {@link #delay} given before.
     */
    public Builder notBefore(Instant notBefore) {
      this.notBefore = Objects.requireNonNull(notBefore, "notBefore");
      this.delay = null;
      return this;
    }

    public OutboxEvent build() {
      return new OutboxEvent(this);
    }
  }
}
