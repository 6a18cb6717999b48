package dev.lambdaoutbox.store.sql;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * One result row, read by column name (case-insensitive) as the text the database sent; the typed
 * accessors parse that text. Times are read as UTC: statements select them as {@code YYYY-MM-DD
 * HH:MM:SS.ffffff} text in UTC, which every carrier returns exactly (the Data API, for one, would
 * round a timestamp column).
 */
public final class Row {
  private final Columns columns;
  private final String[] values;

  private Row(Columns columns, String[] values) {
    this.columns = columns;
    this.values = values;
  }

  /** Whether the result has this column. */
  public boolean has(String column) {
    return columns.index.containsKey(column.toLowerCase(Locale.ROOT));
  }

  /** The raw text of a column; null for SQL NULL. */
  public String text(String column) {
    return values[columns.index(column)];
  }

  public UUID uuid(String column) {
    String text = text(column);
    return text == null ? null : UUID.fromString(text);
  }

  /**
   * A time, from {@code YYYY-MM-DD HH:MM:SS[.f...]} in UTC (or with {@code T} for the space, and
   * with {@code Z} or an offset such as {@code +01} or {@code +01:00}); null for SQL NULL.
   */
  public Instant instant(String column) {
    String text = text(column);
    if (text == null) {
      return null;
    }
    Instant instant = Times.parse(text);
    if (instant == null) {
      throw new IllegalStateException(
          "column " + column + " holds '" + text + "', which is not a time");
    }
    return instant;
  }

  /** A whole number that must not be NULL. */
  public int integer(String column) {
    return Math.toIntExact(longValue(column));
  }

  /** A whole number that must not be NULL. */
  public long longValue(String column) {
    String text = text(column);
    if (text == null) {
      throw new IllegalStateException("column " + column + " is NULL, not a number");
    }
    return Long.parseLong(text.strip());
  }

  /** This row with {@code column}'s text replaced by {@code value}. */
  public Row with(String column, String value) {
    String[] copy = values.clone();
    copy[columns.index(column)] = value;
    return new Row(columns, copy);
  }

  /** The raw texts in column order (e.g. the lines of a query plan). */
  public List<String> values() {
    return Collections.unmodifiableList(Arrays.asList(values));
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Row{");
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(columns.names.get(i)).append('=').append(values[i]);
    }
    return sb.append('}').toString();
  }

  /** The column names of one result, shared by its rows; executors build rows through it. */
  public static final class Columns {
    private final List<String> names;
    private final Map<String, Integer> index = new HashMap<>();

    public Columns(List<String> names) {
      this.names = List.copyOf(names);
      for (int i = 0; i < this.names.size(); i++) {
        index.putIfAbsent(this.names.get(i).toLowerCase(Locale.ROOT), i);
      }
    }

    public List<String> names() {
      return names;
    }

    /** A row of these columns; {@code values} (null for SQL NULL) is taken, not copied. */
    public Row row(String[] values) {
      if (values.length != names.size()) {
        throw new IllegalArgumentException(
            values.length + " values for " + names.size() + " columns " + names);
      }
      return new Row(this, values);
    }

    int index(String column) {
      Integer i = index.get(column);
      if (i == null) {
        i = index.get(column.toLowerCase(Locale.ROOT));
      }
      if (i == null) {
        throw new IllegalArgumentException("no column " + column + " in " + names);
      }
      return i;
    }
  }
}
