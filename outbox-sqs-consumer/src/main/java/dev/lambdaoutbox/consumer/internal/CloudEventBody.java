package dev.lambdaoutbox.consumer.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Locale;
import java.util.UUID;

/**
 * The payload inside a structured CloudEvent, as the poller sends one with {@code
 * OUTBOX_MESSAGE_ENVELOPE=cloudevents}: a JSON object whose {@code specversion} is {@code 1.0} and
 * whose {@code id} is the event id the message attributes carry. Its {@code data} is the payload:
 * the JSON text exactly as written (the characters of the body between the value's first and last),
 * or, for a payload carried as text ({@code datacontenttype} not JSON), the string's value. Any
 * other body, a payload that merely looks like a CloudEvent included, is the payload itself.
 */
public final class CloudEventBody {
  private static final JsonFactory JSON = new JsonFactory();

  private CloudEventBody() {}

  /** The payload in {@code body}: its CloudEvent's data when it is one for {@code eventId}. */
  public static String payload(String body, UUID eventId) {
    if (!looksLikeOne(body)) {
      return body;
    }
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return body;
      }
      String specVersion = null;
      String id = null;
      String contentType = null;
      String data = null;
      String dataText = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "specversion" -> specVersion = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "id" -> id = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "datacontenttype" ->
              contentType = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "data" -> {
            int start = (int) p.currentTokenLocation().getCharOffset();
            if (value == JsonToken.VALUE_STRING) {
              dataText = p.getText(); // reads the string to its end
            } else {
              p.skipChildren();
            }
            data = body.substring(start, (int) p.currentLocation().getCharOffset());
          }
          default -> p.skipChildren();
        }
      }
      boolean ours =
          "1.0".equals(specVersion) && eventId.toString().equalsIgnoreCase(id) && data != null;
      if (!ours) {
        return body;
      }
      // Data of a JSON content type is the payload's JSON text; a string of another is its text.
      return dataText != null && !isJson(contentType) ? dataText : data;
    } catch (IOException e) {
      return body; // not JSON: the payload as it is
    }
  }

  private static boolean looksLikeOne(String body) {
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return c == '{' && body.contains("\"specversion\"");
      }
    }
    return false;
  }

  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return true; // the JSON format's default: data is JSON
    }
    String type = contentType.strip().toLowerCase(Locale.ROOT);
    int semicolon = type.indexOf(';');
    if (semicolon >= 0) {
      type = type.substring(0, semicolon).strip();
    }
    return type.equals("application/json") || type.endsWith("+json") || type.endsWith("/json");
  }
}
