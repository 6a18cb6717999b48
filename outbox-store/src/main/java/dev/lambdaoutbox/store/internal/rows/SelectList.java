package dev.lambdaoutbox.store.internal.rows;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A SELECT or RETURNING list of table columns in which every time column (a name ending in {@code
 * _at}) is read as UTC text through the dialect's formatting, under its own name.
 */
public final class SelectList {
  private SelectList() {}

  /**
   * @param alias table alias to qualify the columns with, or "" for none
   * @param utcText the dialect's expression for a time column as {@code YYYY-MM-DD HH:MM:SS.ffffff}
   *     UTC text
   */
  public static String of(String alias, UnaryOperator<String> utcText, List<String> columns) {
    String prefix = alias.isEmpty() ? "" : alias + ".";
    StringBuilder sb = new StringBuilder();
    for (String column : columns) {
      sb.append(sb.isEmpty() ? "" : ", ");
      if (column.endsWith("_at")) {
        sb.append(utcText.apply(prefix + column)).append(" AS ").append(column);
      } else {
        sb.append(prefix).append(column);
      }
    }
    return sb.toString();
  }
}
