package dev.lambdaoutbox.writer.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON validation and the headers column's encoding. */
public final class JsonSupport {
  /** Shared, configured once; thread-safe after construction. */
  public static final ObjectMapper MAPPER = new ObjectMapper().findAndRegisterModules();

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
          .build();
  private static final TypeReference<LinkedHashMap<String, String>> STRING_MAP =
      new TypeReference<>() {};

  private JsonSupport() {}

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
      return MAPPER.writeValueAsString(headers);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a string map always serializes", e);
    }
  }

  /** The header map of a headers column; empty for null. */
  public static Map<String, String> decodeHeaders(String json) {
    if (json == null || json.isEmpty()) {
      return Map.of();
    }
    try {
      return MAPPER.readValue(json, STRING_MAP);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "headers column is not a JSON object of strings: " + json, e);
    }
  }
}
