package dev.lambdaoutbox.store.internal.dialect.postgres;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.internal.dialect.portable.Syntax;

/**
 * How PostgreSQL statements write times, JSON values and id lists. Times go in as UTC wall-clock
 * {@code timestamp} parameters, read as UTC whatever the session's time zone, and come out as UTC
 * text to the microsecond. Lists of ids travel as one JSON text parameter that the statement
 * expands.
 */
final class PostgresSyntax {
  /** The syntax the portable statements are written in for PostgreSQL. */
  static final Syntax SYNTAX =
      new Syntax(
          PostgresSyntax::at,
          PostgresSyntax::utcText,
          param -> "CAST(:" + param + " AS jsonb)",
          index -> "",
          "EXPLAIN ",
          SqlDialect.POSTGRESQL.now());

  /** The uuids of the JSON array parameter {@code :ids}, as an array for {@code = ANY(...)}. */
  static final String ID_ARRAY =
      "ARRAY(SELECT CAST(value AS uuid) FROM json_array_elements_text(CAST(:ids AS json)))";

  private PostgresSyntax() {}

  /** A timestamp parameter, read as UTC. */
  static String at(String param) {
    return "(CAST(:" + param + " AS timestamp) AT TIME ZONE 'UTC')";
  }

  /**
   * A timestamptz expression as UTC text: {@code YYYY-MM-DD HH:MM:SS[.ffffff]} (trailing zeros of
   * the fraction dropped) under the ISO DateStyle that pgjdbc and the Data API sessions use. Half
   * the server's cost of {@code to_char}; a claim formats three times per row.
   */
  static String utcText(String expression) {
    return "CAST(" + expression + " AT TIME ZONE 'UTC' AS text)";
  }

  /**
   * A time column as the dead-letter table takes it: the column while the stores can read it back
   * (years 1 to 9999), otherwise the time of death ('infinity', a year BC or past 9999).
   */
  static String readable(String column) {
    return "CASE WHEN "
        + column
        + " >= TIMESTAMPTZ '0001-01-01 00:00:00+00' AND "
        + column
        + " < TIMESTAMPTZ '10000-01-01 00:00:00+00' THEN "
        + column
        + " ELSE "
        + at("now")
        + " END";
  }
}
