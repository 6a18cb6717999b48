package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.rows.SelectList;
import dev.lambdaoutbox.store.sql.Params;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * How a dialect writes times and JSON values, the things in which otherwise portable statements
 * differ, and how it asks for a plan.
 *
 * @param timestampParam a timestamp parameter, given its name, as the dialect reads it in UTC
 * @param utcText a time expression as {@code YYYY-MM-DD HH:MM:SS.ffffff} UTC text
 * @param jsonParam a JSON text parameter, given its name, as a value for a JSON column
 * @param alongIndex what follows a table in FROM to read it along the named index, where the
 *     planner needs telling ("" where it does not)
 * @param explain what comes before a statement to have its plan instead of running it
 * @param now the database's current time as the tables' time columns take it ({@link
 *     dev.lambdaoutbox.core.SqlDialect#now()})
 */
public record Syntax(
    UnaryOperator<String> timestampParam,
    UnaryOperator<String> utcText,
    UnaryOperator<String> jsonParam,
    UnaryOperator<String> alongIndex,
    String explain,
    String now) {
  /** The select list of {@code columns}, time columns as UTC text (see {@link SelectList}). */
  public String selectList(String alias, List<String> columns) {
    return SelectList.of(alias, utcText, columns);
  }

  /** A WHERE clause builder writing times in this dialect, its values going into {@code params}. */
  public Conditions conditions(Params params) {
    return new Conditions(timestampParam, params);
  }
}
