package dev.lambdaoutbox.poller.internal.envelope;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * An outbox event as a structured CloudEvent in JSON (CloudEvents 1.0, its JSON event format):
 *
 * <ul>
 *   <li>{@code specversion} {@code 1.0}; {@code id} the event id; {@code source} the poller's
 *       {@code OUTBOX_EVENT_SOURCE}; {@code type} the event type; {@code subject} the aggregate id;
 *       {@code time} when the event occurred (RFC 3339, UTC);
 *   <li>the extension {@code aggregatetype}, the aggregate type;
 *   <li>the distributed-tracing extension: {@code traceparent} and {@code tracestate} from the
 *       event's headers of those names, when it has them;
 *   <li>{@code datacontenttype} {@code application/json} and {@code data} the payload as written,
 *       or, for a payload that is not JSON (only SQL of the application's own can write one),
 *       {@code text/plain} and {@code data} the payload as a JSON string.
 * </ul>
 */
public final class CloudEvent {
  /** The CloudEvents version rendered. */
  public static final String SPEC_VERSION = "1.0";

  /** The extension attribute naming the aggregate type; the subject is the aggregate id. */
  public static final String AGGREGATE_TYPE = "aggregatetype";

  /** The distributed-tracing extension's attributes, taken from the headers of the same names. */
  public static final List<String> TRACE_CONTEXT = List.of("traceparent", "tracestate");

  private static final JsonFactory JSON = new JsonFactory();

  private CloudEvent() {}

  /** {@code row} as a structured CloudEvent from {@code source}, its data {@code payload}. */
  public static String structured(OutboxMessage row, String payload, String source) {
    StringWriter out = new StringWriter(payload.length() + 512);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("specversion", SPEC_VERSION);
      g.writeStringField("id", row.eventId().toString());
      g.writeStringField("source", source);
      g.writeStringField("type", row.eventType());
      g.writeStringField("subject", row.aggregateId());
      g.writeStringField("time", row.occurredAt().toString());
      g.writeStringField(AGGREGATE_TYPE, row.aggregateType());
      for (String name : TRACE_CONTEXT) {
        String value = row.headers().get(name);
        if (value != null) {
          g.writeStringField(name, value);
        }
      }
      if (isJson(payload)) {
        g.writeStringField("datacontenttype", "application/json");
        g.writeFieldName("data");
        g.writeRawValue(payload);
      } else {
        g.writeStringField("datacontenttype", "text/plain");
        g.writeStringField("data", payload);
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("a StringWriter does not fail", e);
    }
    return out.toString();
  }

  /** Whether {@code text} is one JSON value and nothing after it. */
  static boolean isJson(String text) {
    try (JsonParser p = JSON.createParser(text)) {
      if (p.nextToken() == null) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false; // not JSON: carried as text
    }
  }

  /**
   * Null when {@code source} may be a CloudEvent's {@code source} (a URI reference, RFC 3986),
   * otherwise what is wrong with it.
   */
  public static String sourceProblem(String source) {
    try {
      new java.net.URI(source);
      return null;
    } catch (java.net.URISyntaxException e) {
      return "is not a URI reference, as a CloudEvent's source must be ("
          + e.getReason()
          + " at index "
          + e.getIndex()
          + "); e.g. 'com.example.orders' or '/orders'";
    }
  }
}
