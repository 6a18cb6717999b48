package dev.lambdaoutbox.poller.internal.log;

import java.util.LinkedHashMap;
import java.util.Map;

/** The fields of one structured log line, in the order given. */
public final class LogFields {
  private LogFields() {}

  /** {@code of("eventId", id, "attempts", 3)}: names and values, alternating. */
  public static Map<String, Object> of(Object... namesAndValues) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      fields.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return fields;
  }
}
