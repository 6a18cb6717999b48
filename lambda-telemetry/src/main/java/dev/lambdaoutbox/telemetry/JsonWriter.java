package dev.lambdaoutbox.telemetry;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;

/**
 * Writes a log line's, a metric line's or a function response's values as compact JSON text, as
 * Jackson's {@code ObjectMapper} writes them: the same escapes (a backslash-u escape with
 * upper-case hex for control characters without a short one), {@code Double}/{@code Float} by their
 * {@code toString} (NaN and the infinities as strings), other numbers by {@code toString()}, enums
 * by name, a {@link Map} as an object (keys by {@code String.valueOf}), a {@link Collection} or
 * object array as an array, {@link Raw} as it is, and anything else as a string of its {@code
 * toString()}.
 *
 * <p>It keeps Jackson's data binding off a function's cold start; it uses no lambda, which would
 * spin a class at run time (docs/PERFORMANCE.md, "Cold start of the packaged functions").
 */
public final class JsonWriter {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /**
   * A value that is already JSON text, written as it is.
   *
   * @param json exactly one valid JSON value, e.g. a Jackson tree's {@code toString()}
   */
  public record Raw(String json) {
    public Raw {
      Objects.requireNonNull(json, "json");
    }
  }

  private JsonWriter() {}

  /** {@code value} as JSON text. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder(256);
    value(out, value);
    return out.toString();
  }

  private static void value(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof CharSequence || value instanceof Character) {
      string(out, value.toString());
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Double d) {
      number(out, Double.toString(d), d.isNaN() || d.isInfinite());
    } else if (value instanceof Float f) {
      number(out, Float.toString(f), f.isNaN() || f.isInfinite());
    } else if (value instanceof Number n) {
      out.append(n);
    } else if (value instanceof Enum<?> e) {
      string(out, e.name());
    } else if (value instanceof Map<?, ?> map) {
      object(out, map);
    } else if (value instanceof Raw raw) {
      out.append(raw.json());
    } else if (value instanceof Collection<?> items) {
      out.append('[');
      boolean first = true;
      for (Object item : items) {
        first = comma(out, first);
        value(out, item);
      }
      out.append(']');
    } else if (value instanceof Object[] items) {
      out.append('[');
      for (int i = 0; i < items.length; i++) {
        comma(out, i == 0);
        value(out, items[i]);
      }
      out.append(']');
    } else {
      string(out, value.toString());
    }
  }

  private static void object(StringBuilder out, Map<?, ?> map) {
    out.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      first = comma(out, first);
      string(out, String.valueOf(entry.getKey()));
      out.append(':');
      value(out, entry.getValue());
    }
    out.append('}');
  }

  /** A comma unless {@code first}; returns false, for the next element. */
  private static boolean comma(StringBuilder out, boolean first) {
    if (!first) {
      out.append(',');
    }
    return false;
  }

  private static void number(StringBuilder out, String text, boolean notFinite) {
    if (notFinite) {
      string(out, text);
    } else {
      out.append(text);
    }
  }

  private static void string(StringBuilder out, String text) {
    out.append('"');
    int start = 0;
    int length = text.length();
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      out.append(text, start, i).append('\\');
      switch (c) {
        case '"', '\\' -> out.append(c);
        case '\b' -> out.append('b');
        case '\t' -> out.append('t');
        case '\n' -> out.append('n');
        case '\f' -> out.append('f');
        case '\r' -> out.append('r');
        default -> out.append("u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
      start = i + 1;
    }
    out.append(text, start, length).append('"');
  }
}
