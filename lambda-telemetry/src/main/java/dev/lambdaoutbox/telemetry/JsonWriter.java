package dev.lambdaoutbox.telemetry;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;

/**
 * Writes a value as compact JSON text, as Jackson's {@code ObjectMapper} writes it (no spaces;
 * {@code \"}, {@code \\} and the short escapes {@code \b \t \n \f \r}; a backslash-u escape with
 * four upper-case hex digits for the other control characters; every other character as it is), for
 * the values a log line, a metric line or a function's response holds:
 *
 * <ul>
 *   <li>{@code null}, {@link Boolean}, {@link CharSequence}, {@link Character};
 *   <li>{@link Double} and {@link Float} as {@code Double.toString}/{@code Float.toString} write
 *       them, NaN and the infinities as strings ({@code "NaN"}), since JSON has no such number;
 *   <li>any other {@link Number} by its {@code toString()};
 *   <li>an {@link Enum} by its name;
 *   <li>a {@link Map} as an object (keys by {@code String.valueOf}), a {@link Collection} or an
 *       object array as an array, their elements by these same rules;
 *   <li>{@link Raw} (e.g. a Jackson tree's {@code toString()}) as it is;
 *   <li>anything else as a string, its {@code toString()}.
 * </ul>
 *
 * <p>It exists so that a cold start of a function does not pay for Jackson's data binding (about
 * 500 classes) to write a log line. It uses no lambda, which would spin a class at run time.
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
