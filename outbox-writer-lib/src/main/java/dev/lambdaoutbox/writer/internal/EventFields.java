package dev.lambdaoutbox.writer.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.EventRules;
import dev.lambdaoutbox.writer.InvalidOutboxEventException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The checks an {@link dev.lambdaoutbox.writer.OutboxEvent} passes its fields through as it is
 * built: each returns the value as the event keeps it, or throws an {@link
 * InvalidOutboxEventException} naming the field. The rules themselves are {@link EventRules}, which
 * the poller and the reprocessor apply to rows as well.
 */
public final class EventFields {
  private EventFields() {}

  /** An aggregate type, aggregate id, event type or idempotency key. */
  public static String name(String field, String value) {
    String problem = EventRules.problemWithName(value);
    if (problem != null) {
      throw new InvalidOutboxEventException(field, problem);
    }
    return value;
  }

  /** The payload as JSON text. */
  public static String payload(String json) {
    String problem = EventRules.problemWithPayload(json);
    if (problem != null) {
      throw new InvalidOutboxEventException("payload", problem);
    }
    return json;
  }

  /**
   * {@code value} serialized with {@code mapper}, refused naming {@code payload} when it cannot be.
   */
  public static String json(Object value, ObjectMapper mapper) {
    Objects.requireNonNull(mapper, "mapper");
    if (value == null) {
      throw new InvalidOutboxEventException("payload", "must not be null");
    }
    try {
      return mapper.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new InvalidOutboxEventException(
          "payload", "could not be serialized to JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** A copy of the headers, in their order. */
  public static Map<String, String> headers(Map<String, String> headers) {
    EventRules.FieldProblem problem = EventRules.problemWithHeaders(headers);
    if (problem != null) {
      throw new InvalidOutboxEventException(problem.field(), problem.problem());
    }
    return new LinkedHashMap<>(headers);
  }

  /** Null for no delay: a delay of zero or less means now. */
  public static Duration delay(Duration delay, Duration max) {
    if (delay == null || delay.isNegative() || delay.isZero()) {
      return null;
    }
    if (delay.compareTo(max) > 0) {
      throw new InvalidOutboxEventException(
          "delay", "is longer than " + max.toDays() + " days (MAX_DELAY), was " + delay);
    }
    return delay.truncatedTo(ChronoUnit.MICROS);
  }

  /**
   * The time, when not too far ahead: checked against this host's clock, a bound the database's
   * clock, seconds away at most, does not change in substance.
   */
  public static Instant notBefore(Instant notBefore, Duration max) {
    if (notBefore == null) {
      return null;
    }
    if (notBefore.isAfter(Instant.now().plus(max))) {
      throw new InvalidOutboxEventException(
          "notBefore",
          "is more than " + max.toDays() + " days ahead (MAX_DELAY), was " + notBefore);
    }
    return notBefore.truncatedTo(ChronoUnit.MICROS);
  }

  /** A topic ARN, queue URL or bus ARN, or null for the routing's choice. */
  public static String destination(String destination) {
    if (destination == null) {
      return null;
    }
    if (destination.length() > EventRules.MAX_DESTINATION_LENGTH) {
      throw new InvalidOutboxEventException(
          "destination", "has more than " + EventRules.MAX_DESTINATION_LENGTH + " characters");
    }
    String problem = Destinations.problemWith(destination);
    if (problem != null) {
      throw new InvalidOutboxEventException("destination", problem);
    }
    return destination;
  }
}
