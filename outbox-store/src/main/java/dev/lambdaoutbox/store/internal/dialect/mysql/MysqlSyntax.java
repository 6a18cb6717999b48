package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.internal.dialect.portable.Syntax;

/**
 * How MySQL statements write times: ids are {@code char(36)}; times are UTC {@code datetime(6)}, so
 * time parameters go in as they are and come out as text ({@code DATE_FORMAT}) to the microsecond.
 */
final class MysqlSyntax {
  /** The syntax the portable statements are written in for MySQL. */
  static final Syntax SYNTAX =
      new Syntax(
          name -> ":" + name,
          MysqlSyntax::utcText,
          name -> ":" + name,
          index -> " FORCE INDEX (" + index + ")",
          "EXPLAIN FORMAT=JSON ",
          SqlDialect.MYSQL.now());

  private MysqlSyntax() {}

  /** A datetime(6) expression as UTC text to the microsecond. */
  static String utcText(String expression) {
    return "DATE_FORMAT(" + expression + ", '%Y-%m-%d %H:%i:%s.%f')";
  }

  /**
   * A time column as the dead-letter table takes it: the column while the stores can read it back,
   * otherwise the time of death (a zero date, or a zero month or day, which MySQL may store).
   */
  static String readable(String column) {
    return "CASE WHEN MONTH("
        + column
        + ") > 0 AND DAYOFMONTH("
        + column
        + ") > 0 THEN "
        + column
        + " ELSE :now END";
  }
}
