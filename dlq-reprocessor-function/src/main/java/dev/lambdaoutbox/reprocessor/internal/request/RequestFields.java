package dev.lambdaoutbox.reprocessor.internal.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.EventRules;
import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Typed, strict reads of one JSON object of the request. Every refusal is an {@link
 * InvalidRequestException} naming the field by its path ({@code filter.deadAtFrom}). A field that
 * is present must have the right type: {@code null} is refused too, so a generated request cannot
 * fall back to a default by accident.
 */
final class RequestFields {
  private static final Pattern UUID_TEXT =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  private final ObjectNode node;
  private final String prefix;

  RequestFields(ObjectNode node, String prefix) {
    this.node = node;
    this.prefix = prefix;
  }

  String path(String name) {
    return prefix.isEmpty() ? name : prefix + "." + name;
  }

  boolean has(String name) {
    return node.has(name);
  }

  /** The first field not in {@code allowed}, in document order; null when there is none. */
  String firstUnknown(Set<String> allowed) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        return name;
      }
    }
    return null;
  }

  /** Refuses any field not in {@code allowed}, listing the ones that are. */
  void allowOnly(Set<String> allowed, String what) {
    String unknown = firstUnknown(allowed);
    if (unknown != null) {
      throw new InvalidRequestException(path(unknown), unknownFieldProblem(unknown, allowed, what));
    }
  }

  static String unknownFieldProblem(String unknown, Set<String> allowed, String what) {
    String hint = Typos.closest(unknown, allowed);
    return "is not a field of "
        + what
        + (hint == null ? "" : "; did you mean '" + hint + "'?")
        + " Fields of "
        + what
        + ": "
        + String.join(", ", new TreeSet<>(allowed))
        + ". Unknown fields are refused so that a typo cannot widen or change the action.";
  }

  /** A non-blank string of at most {@code maxLength} characters, or null when absent. */
  String text(String name, int maxLength) {
    JsonNode value = present(name);
    if (value == null) {
      return null;
    }
    if (!value.isTextual()) {
      throw wrongType(name, value, "a string");
    }
    String text = value.textValue();
    if (text.isBlank()) {
      throw new InvalidRequestException(path(name), "must not be blank");
    }
    if (text.length() > maxLength) {
      throw new InvalidRequestException(
          path(name), "is " + text.length() + " characters long; at most " + maxLength);
    }
    return text;
  }

  /** A whole number from {@code min} to {@code max}, or {@code defaultValue} when absent. */
  int integer(String name, int defaultValue, int min, int max) {
    JsonNode value = present(name);
    if (value == null) {
      return defaultValue;
    }
    if (!value.isNumber()) {
      throw wrongType(name, value, "a whole number");
    }
    if (!value.isIntegralNumber()) {
      throw new InvalidRequestException(
          path(name), value.asText() + " is not a whole number; use " + min + " to " + max);
    }
    if (!value.canConvertToInt() || value.intValue() < min || value.intValue() > max) {
      throw new InvalidRequestException(
          path(name), value.asText() + " is out of range; use " + min + " to " + max);
    }
    return value.intValue();
  }

  /** true or false, or null when absent. */
  Boolean bool(String name) {
    JsonNode value = present(name);
    if (value == null) {
      return null;
    }
    if (!value.isBoolean()) {
      throw wrongType(name, value, "true or false");
    }
    return value.booleanValue();
  }

  /** An SNS topic ARN or SQS queue URL, or null when absent. */
  String destination(String name) {
    String destination = text(name, EventRules.MAX_DESTINATION_LENGTH);
    if (destination != null) {
      String problem = Destinations.problemWith(destination);
      if (problem != null) {
        throw new InvalidRequestException(path(name), problem);
      }
    }
    return destination;
  }

  /** {@code text} as a UUID, or a refusal naming {@code field}. */
  static UUID uuid(String field, String text) {
    if (!UUID_TEXT.matcher(text).matches()) {
      throw new InvalidRequestException(
          field,
          "'"
              + text
              + "' is not a UUID (8-4-4-4-12 hex digits, e.g."
              + " 0190a6f2-7c1e-7d3a-9b1f-2f1c9a3e4b5d)");
    }
    return UUID.fromString(text.toLowerCase(Locale.ROOT));
  }

  /** A time with its zone offset, ISO-8601, e.g. {@code 2026-03-01T00:00:00Z}; null when absent. */
  Instant instant(String name) {
    String text = text(name, 64);
    if (text == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new InvalidRequestException(
          path(name),
          "'"
              + text
              + "' is not an ISO-8601 time with a zone offset; write e.g. 2026-03-01T00:00:00Z"
              + " or 2026-03-01T01:00:00+01:00");
    }
  }

  /** A nested object's fields, or null when absent. */
  RequestFields object(String name) {
    JsonNode value = present(name);
    if (value == null) {
      return null;
    }
    if (!value.isObject()) {
      throw wrongType(name, value, "a JSON object");
    }
    return new RequestFields((ObjectNode) value, path(name));
  }

  /** An array, or null when absent. */
  ArrayNode array(String name) {
    JsonNode value = present(name);
    if (value == null) {
      return null;
    }
    if (!value.isArray()) {
      throw wrongType(name, value, "a JSON array");
    }
    return (ArrayNode) value;
  }

  boolean isEmpty() {
    return node.isEmpty();
  }

  private JsonNode present(String name) {
    JsonNode value = node.get(name);
    if (value == null) {
      return null;
    }
    if (value.isNull()) {
      throw new InvalidRequestException(
          path(name), "must not be null; leave the field out to use its default");
    }
    return value;
  }

  private InvalidRequestException wrongType(String name, JsonNode value, String expected) {
    return new InvalidRequestException(
        path(name), "must be " + expected + ", not " + describe(value));
  }

  static String describe(JsonNode value) {
    return switch (value.getNodeType()) {
      case STRING -> "the string " + value;
      case NUMBER -> "the number " + value;
      case BOOLEAN -> value.asText();
      case OBJECT -> "an object";
      case ARRAY -> "an array";
      case NULL -> "null";
      default -> value.getNodeType().name().toLowerCase(Locale.ROOT);
    };
  }
}
