package dev.lambdaoutbox.store.sql;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The named, typed parameters of one statement: {@code :owner} in the SQL takes the value added as
 * {@code text("owner", ...)}. A null value is a typed SQL NULL. Built for one call; not
 * thread-safe.
 *
 * <pre>{@code
 * session.update(
 *     "UPDATE t SET locked_by = :owner WHERE next_attempt_at <= :now",
 *     Params.of().text("owner", owner).timestamp("now", now));
 * }</pre>
 */
public final class Params {
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
  private static final Params NONE = new Params(Map.of());

  private final Map<String, SqlValue> values;

  private Params(Map<String, SqlValue> values) {
    this.values = values;
  }

  /** An empty set to add to. */
  public static Params of() {
    return new Params(new LinkedHashMap<>());
  }

  /** No parameters at all; cannot be added to. */
  public static Params none() {
    return NONE;
  }

  public Params text(String name, String value) {
    return put(name, SqlValue.Kind.TEXT, value);
  }

  public Params uuid(String name, UUID value) {
    return put(name, SqlValue.Kind.UUID, value);
  }

  public Params timestamp(String name, Instant value) {
    return put(name, SqlValue.Kind.TIMESTAMP, value);
  }

  public Params integer(String name, int value) {
    return put(name, SqlValue.Kind.INT, value);
  }

  public Params longValue(String name, long value) {
    return put(name, SqlValue.Kind.LONG, value);
  }

  /** JSON text; the SQL expands it ({@code json_array_elements_text}, {@code JSON_TABLE}). */
  public Params json(String name, String value) {
    return put(name, SqlValue.Kind.JSON, value);
  }

  public Params decimal(String name, BigDecimal value) {
    return put(name, SqlValue.Kind.DECIMAL, value);
  }

  /** The value named {@code name}; an {@link IllegalArgumentException} when there is none. */
  public SqlValue get(String name) {
    SqlValue value = values.get(name);
    if (value == null) {
      throw new IllegalArgumentException(
          "no value for the parameter :" + name + " (given: " + values.keySet() + ")");
    }
    return value;
  }

  /** Every value, in the order added. */
  public Map<String, SqlValue> values() {
    return Collections.unmodifiableMap(values);
  }

  private Params put(String name, SqlValue.Kind kind, Object value) {
    if (this == NONE) {
      throw new UnsupportedOperationException("Params.none() takes no values; use Params.of()");
    }
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "parameter name '" + name + "' must be a letter followed by letters, digits or _");
    }
    if (values.putIfAbsent(name, new SqlValue(kind, value)) != null) {
      throw new IllegalArgumentException("parameter :" + name + " is given twice");
    }
    return this;
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
