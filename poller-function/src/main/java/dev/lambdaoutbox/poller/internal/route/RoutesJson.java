package dev.lambdaoutbox.poller.internal.route;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the JSON object of {@code OUTBOX_ROUTES} with Jackson's streaming parser, which costs a
 * cold start a few dozen classes where data binding costs about 500. It only reads: what the values
 * must be is {@code PollerConfig}'s to say.
 */
public final class RoutesJson {
  /**
   * A route's value: its text if it is a JSON string, otherwise the JSON as written.
   *
   * @param textual whether the value is a JSON string
   */
  public record Value(String text, boolean textual) {}

  private RoutesJson() {}

  /**
   * The fields of the JSON object {@code json}, in their order (a repeated name keeps its first
   * place and its last value); null if {@code json} is not an object. Text after the object is
   * ignored.
   *
   * @throws IOException if {@code json} is not valid JSON
   */
  public static Map<String, Value> read(String json) throws IOException {
    if (isEmptyObject(json)) {
      return new LinkedHashMap<>(); // the template's default: no parser (65 classes) needed
    }
    try (JsonParser parser = new JsonFactory().createParser(json)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      Map<String, Value> fields = new LinkedHashMap<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken token = parser.nextToken();
        fields.put(name, value(parser, token, json));
      }
      return fields;
    }
  }

  /** Whether {@code json} is exactly {@code {}}, with JSON whitespace around or between. */
  static boolean isEmptyObject(String json) {
    int i = skipWhitespace(json, 0);
    if (i == json.length() || json.charAt(i) != '{') {
      return false;
    }
    i = skipWhitespace(json, i + 1);
    if (i == json.length() || json.charAt(i) != '}') {
      return false;
    }
    return skipWhitespace(json, i + 1) == json.length();
  }

  private static int skipWhitespace(String json, int from) {
    int i = from;
    while (i < json.length() && " \t\n\r".indexOf(json.charAt(i)) >= 0) {
      i++;
    }
    return i;
  }

  private static Value value(JsonParser parser, JsonToken token, String json) throws IOException {
    if (token == JsonToken.VALUE_STRING) {
      return new Value(parser.getText(), true);
    }
    if (!token.isStructStart()) {
      return new Value(parser.getText(), false);
    }
    int start = (int) parser.currentTokenLocation().getCharOffset();
    parser.skipChildren();
    int end = (int) parser.currentTokenLocation().getCharOffset() + 1;
    return new Value(json.substring(start, end), false);
  }
}
