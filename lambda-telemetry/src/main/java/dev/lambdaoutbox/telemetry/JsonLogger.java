package dev.lambdaoutbox.telemetry;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Structured logs: one JSON object per line on standard output, which CloudWatch Logs Insights can
 * query by field ({@code level}, {@code message}, {@code eventId}, ...).
 */
public final class JsonLogger {
  /** Severity, lowest first. */
  public enum Level {
    DEBUG,
    INFO,
    WARN,
    ERROR;

    /** Parses DEBUG/INFO/WARN/ERROR, case-insensitively; null for anything else. */
    public static Level parse(String text) {
      try {
        return valueOf(text.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException | NullPointerException e) {
        return null;
      }
    }
  }

  private final String service;
  private final String logger;
  private final Level threshold;
  private final PrintStream out;
  private final Clock clock;

  public JsonLogger(
      String service, Class<?> source, Level threshold, PrintStream out, Clock clock) {
    this.service = Objects.requireNonNull(service, "service");
    this.logger = source.getName();
    this.threshold = Objects.requireNonNull(threshold, "threshold");
    this.out = Objects.requireNonNull(out, "out");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A logger for {@code source} with the same service, threshold and output. */
  public JsonLogger forClass(Class<?> source) {
    return new JsonLogger(service, source, threshold, out, clock);
  }

  public boolean enabled(Level level) {
    return level.compareTo(threshold) >= 0;
  }

  public void debug(String message, Map<String, ?> fields) {
    log(Level.DEBUG, message, fields, null);
  }

  public void info(String message, Map<String, ?> fields) {
    log(Level.INFO, message, fields, null);
  }

  public void warn(String message, Map<String, ?> fields) {
    log(Level.WARN, message, fields, null);
  }

  public void error(String message, Map<String, ?> fields, Throwable error) {
    log(Level.ERROR, message, fields, error);
  }

  public void log(Level level, String message, Map<String, ?> fields, Throwable error) {
    if (!enabled(level)) {
      return;
    }
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("timestamp", clock.instant().toString());
    line.put("level", level.name());
    line.put("service", service);
    line.put("logger", logger);
    line.put("message", message);
    line.putAll(fields);
    if (error != null) {
      line.put("errorType", error.getClass().getName());
      line.put("errorMessage", String.valueOf(error.getMessage()));
      StringWriter trace = new StringWriter();
      error.printStackTrace(new PrintWriter(trace));
      line.put("stackTrace", trace.toString());
    }
    out.println(JsonWriter.write(line));
  }
}
