package dev.lambdaoutbox.core;

import java.util.Map;

/**
 * What an event's fields must be for SNS and SQS to take it, and what the tables hold, as problems:
 * the writer's {@code OutboxEvent} refuses an event that breaks a rule, and the poller dead-letters
 * a stored row that does (a row written by SQL, or by an older writer). Each method returns null
 * when the value is acceptable, otherwise why not.
 */
public final class EventRules {
  /** Longest aggregate type, aggregate id, event type or idempotency key the tables hold. */
  public static final int MAX_NAME_LENGTH = 255;

  /** Longest destination (topic ARN or queue URL) the tables hold. */
  public static final int MAX_DESTINATION_LENGTH = 2048;

  /** Longest header name: the longest message attribute name SQS takes. */
  public static final int MAX_HEADER_NAME_LENGTH = MessageAttributeRules.MAX_NAME_LENGTH;

  private EventRules() {}

  /** Aggregate type, aggregate id, event type, idempotency key: they travel as attributes. */
  public static String problemWithName(String value) {
    if (value == null || value.isBlank()) {
      return "must not be blank";
    }
    if (value.length() > MAX_NAME_LENGTH) {
      return "has " + value.length() + " characters; at most " + MAX_NAME_LENGTH + " are allowed";
    }
    return MessageAttributeRules.problemWithCharacters(value);
  }

  /** The payload: one JSON value, published as the message body. */
  public static String problemWithPayload(String json) {
    if (json == null) {
      return "must be set (JSON text or an object)";
    }
    String problem = JsonSupport.problemWith(json);
    // JSON strings may hold U+FFFE, U+FFFF or a lone surrogate; the broker would refuse them.
    return problem != null ? problem : MessageAttributeRules.problemWithCharacters(json);
  }

  /** The headers: at most {@link OutboxMessageAttributes#MAX_HEADERS}, each a valid attribute. */
  public static FieldProblem problemWithHeaders(Map<String, String> headers) {
    if (headers.size() > OutboxMessageAttributes.MAX_HEADERS) {
      return new FieldProblem(
          "headers",
          "has "
              + headers.size()
              + " entries; at most "
              + OutboxMessageAttributes.MAX_HEADERS
              + " fit beside the outbox's own message attributes (SNS/SQS allow 10)");
    }
    for (Map.Entry<String, String> h : headers.entrySet()) {
      String nameProblem = MessageAttributeRules.problemWithName(h.getKey());
      if (nameProblem != null) {
        return new FieldProblem("headers." + h.getKey(), nameProblem);
      }
      String valueProblem = MessageAttributeRules.problemWithValue(h.getValue());
      if (valueProblem != null) {
        return new FieldProblem("headers." + h.getKey(), valueProblem);
      }
    }
    return null;
  }

  /** A rule broken by one field: {@code headers}, or one header as {@code headers.<name>}. */
  public record FieldProblem(String field, String problem) {}
}
