package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.sql.Params;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A WHERE clause over the dead-letter table built from a filter and a keyset position; the values
 * go into the statement's {@link Params} (named {@code eventType}, {@code deadFrom}, {@code
 * afterAt}, ...), never into the SQL.
 */
final class Conditions {
  private final UnaryOperator<String> timestampParam;
  private final Params params;
  private final List<String> clauses = new ArrayList<>();

  /**
   * @param timestampParam the dialect's spelling of a timestamp parameter, given its name
   * @param params where the values go
   */
  Conditions(UnaryOperator<String> timestampParam, Params params) {
    this.timestampParam = timestampParam;
    this.params = params;
  }

  /** The criteria {@code filter} sets. */
  Conditions matching(DeadLetterFilter filter) {
    text("event_type", "eventType", filter.eventType());
    text("aggregate_type", "aggregateType", filter.aggregateType());
    text("aggregate_id", "aggregateId", filter.aggregateId());
    text("error_code", "errorCode", filter.errorCode());
    if (filter.deadFrom() != null) {
      clauses.add("dead_at >= " + timestampParam.apply("deadFrom"));
      params.timestamp("deadFrom", filter.deadFrom());
    }
    if (filter.deadTo() != null) {
      clauses.add("dead_at < " + timestampParam.apply("deadTo"));
      params.timestamp("deadTo", filter.deadTo());
    }
    return this;
  }

  /** Rows after {@code cursor} in listing order (dead_at, id); no condition for null. */
  Conditions after(DeadLetterCursor cursor) {
    if (cursor != null) {
      String at = timestampParam.apply("afterAt");
      clauses.add("(dead_at > " + at + " OR (dead_at = " + at + " AND id > :afterId))");
      params.timestamp("afterAt", cursor.deadAt()).uuid("afterId", cursor.id());
    }
    return this;
  }

  /** " WHERE a AND b", or "" when there is no condition. */
  String where() {
    return clauses.isEmpty() ? "" : " WHERE " + String.join(" AND ", clauses);
  }

  private void text(String column, String name, String value) {
    if (value != null) {
      clauses.add(column + " = :" + name);
      params.text(name, value);
    }
  }
}
