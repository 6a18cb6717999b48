package dev.lambdaoutbox.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON validation and the headers column's encoding. */
public final class JsonSupport {
  /**
   * Built on first use: reading a row's headers and checking a payload stream the tokens, so a
   * poller that never needs data binding (about 500 classes and a module scan) never loads it.
   */
  private static final class Shared {
    static final ObjectMapper MAPPER = new ObjectMapper().findAndRegisterModules();
  }

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
          .build();

  private JsonSupport() {}

  /** The shared mapper, configured once; thread-safe. */
  public static ObjectMapper mapper() {
    return Shared.MAPPER;
  }

  /**
   * Returns null when {@code text} is exactly one well-formed JSON value (surrounding whitespace
   * allowed), otherwise a short description of what is wrong with it.
   */
  public static String problemWith(String text) {
    try (JsonParser parser = FACTORY.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        return "is empty; it must be a JSON value";
      }
      parser.skipChildren();
      if (parser.nextToken() != null) {
        return "has text after the end of the JSON value at " + describe(parser);
      }
      return null;
    } catch (JsonProcessingException e) {
      return "is not valid JSON: " + e.getOriginalMessage() + " at " + describe(e);
    } catch (IOException e) {
      return "could not be read as JSON: " + e.getMessage();
    }
  }

  private static String describe(JsonParser parser) {
    return "line "
        + parser.currentLocation().getLineNr()
        + ", column "
        + parser.currentLocation().getColumnNr();
  }

  private static String describe(JsonProcessingException e) {
    return e.getLocation() == null
        ? "an unknown position"
        : "line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
  }

  /** The headers column's text for a header map; null for no headers. */
  public static String encodeHeaders(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    try {
      return mapper().writeValueAsString(headers);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a string map always serializes", e);
    }
  }

  /**
   * The header map of a headers column, in its order; empty for null or empty text. Strict: the
   * text must be one JSON object whose values are all strings, each name once; anything else is an
   * {@link IllegalArgumentException} whose message says what is wrong (never the text itself).
   * Streams the tokens; builds no tree.
   */
  public static Map<String, String> decodeHeaders(String json) {
    if (json == null || json.isEmpty()) {
      return Map.of();
    }
    try (JsonParser parser = FACTORY.createParser(json)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw notStringMap("it is " + describe(first) + ", not an object");
      }
      Map<String, String> headers = new LinkedHashMap<>();
      JsonToken token;
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (value != JsonToken.VALUE_STRING) {
          throw notStringMap("the value of \"" + name + "\" is " + describe(value));
        }
        if (headers.putIfAbsent(name, parser.getText()) != null) {
          throw notStringMap("it names \"" + name + "\" twice");
        }
      }
      if (token != JsonToken.END_OBJECT || parser.nextToken() != null) {
        throw notStringMap("it has text after the end of the object");
      }
      return headers;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "is not valid JSON: " + e.getOriginalMessage() + " at " + describe(e), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("could not be read as JSON: " + e.getMessage(), e);
    }
  }

  private static IllegalArgumentException notStringMap(String why) {
    return new IllegalArgumentException("is not a JSON object of strings: " + why);
  }

  private static String describe(JsonToken token) {
    if (token == null) {
      return "empty";
    }
    return switch (token) {
      case START_ARRAY -> "an array";
      case START_OBJECT -> "an object";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> token.asString() == null ? token.name() : token.asString();
    };
  }
}
