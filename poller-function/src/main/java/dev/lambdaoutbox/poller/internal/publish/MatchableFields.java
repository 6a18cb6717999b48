package dev.lambdaoutbox.poller.internal.publish;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.lambdaoutbox.core.Utf8;
import java.io.IOException;
import java.util.Set;

/**
 * The fields of a payload that an EventBridge rule can still match once the payload itself went to
 * S3: its members, in order, whose values are short scalars (strings of at most {@value
 * #MAX_STRING_CHARS} characters, numbers, booleans, null), arrays of such scalars, and objects of
 * such members, at any depth up to {@value #MAX_DEPTH}; a long string, an array holding an object
 * or a long string, or a member that would take the fields past their byte budget is left out (a
 * later, smaller one may still fit). The result is the members' JSON text without the braces, to go
 * beside the pointer in a Detail; empty when none is kept.
 */
public final class MatchableFields {
  /** The longest string value kept: rules match identifiers, states and types, not documents. */
  public static final int MAX_STRING_CHARS = 256;

  /** The deepest object whose members are kept. */
  static final int MAX_DEPTH = 8;

  /** The names the pointer takes in a Detail; a payload's members of these names are left out. */
  static final Set<String> POINTER_NAMES = Set.of("payloadS3Pointer", "extendedPayloadSize");

  private static final JsonFactory JSON = new JsonFactory();

  private MatchableFields() {}

  /**
   * The matchable members of {@code payload} (a JSON object) in at most {@code budgetBytes} UTF-8
   * bytes; empty when the payload is not an object or nothing fits.
   */
  public static String of(String payload, int budgetBytes) {
    if (budgetBytes <= 0) {
      return "";
    }
    try (JsonParser parser = JSON.createParser(payload)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return "";
      }
      StringBuilder out = new StringBuilder();
      members(parser, out, budgetBytes, 1);
      return out.toString();
    } catch (IOException e) {
      return ""; // not JSON after all: the pointer alone, as before
    }
  }

  /**
   * Appends the kept members of the object the parser is in to {@code out}, within {@code budget}
   * bytes in all; leaves the parser on the object's end.
   */
  private static void members(JsonParser parser, StringBuilder out, int budget, int depth)
      throws IOException {
    long used = 0;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      if (depth == 1 && POINTER_NAMES.contains(name)) {
        parser.skipChildren();
        continue;
      }
      String member = member(parser, name, value, (int) (budget - used - 1), depth);
      if (member == null) {
        continue;
      }
      long bytes = Utf8.length(member) + (out.isEmpty() ? 0 : 1);
      if (used + bytes > budget) {
        continue;
      }
      if (!out.isEmpty()) {
        out.append(',');
      }
      out.append(member);
      used += bytes;
    }
  }

  /**
   * {@code "name":value} for the value the parser is on, or null when it is not kept; the parser is
   * left on the value's last token either way.
   */
  private static String member(
      JsonParser parser, String name, JsonToken value, int budget, int depth) throws IOException {
    String quotedName = quote(name) + ":";
    int room = (int) (budget - Utf8.length(quotedName));
    String text =
        switch (value) {
          case START_OBJECT -> {
            if (depth >= MAX_DEPTH || room < 2) {
              parser.skipChildren();
              yield null;
            }
            StringBuilder inner = new StringBuilder();
            members(parser, inner, room - 2, depth + 1);
            yield inner.isEmpty() ? null : "{" + inner + "}";
          }
          case START_ARRAY -> array(parser, room);
          default -> scalar(parser, value);
        };
    return text == null ? null : quotedName + text;
  }

  /**
   * An array of short scalars as JSON text; null (and the rest skipped) for any other, or for one
   * longer than {@code room} characters.
   */
  private static String array(JsonParser parser, int room) throws IOException {
    StringBuilder out = new StringBuilder("[");
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
      String scalar = scalar(parser, token);
      if (scalar == null || out.length() + scalar.length() + 1 > room) {
        if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
          parser.skipChildren();
        }
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          parser.skipChildren();
        }
        return null;
      }
      if (out.length() > 1) {
        out.append(',');
      }
      out.append(scalar);
    }
    return out.append(']').toString();
  }

  /** A short scalar as JSON text, or null for a long string or a container. */
  private static String scalar(JsonParser parser, JsonToken token) throws IOException {
    return switch (token) {
      case VALUE_STRING ->
          parser.getTextLength() > MAX_STRING_CHARS ? null : quote(parser.getText());
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE, VALUE_NULL ->
          parser.getText();
      default -> null;
    };
  }

  private static String quote(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }
}
