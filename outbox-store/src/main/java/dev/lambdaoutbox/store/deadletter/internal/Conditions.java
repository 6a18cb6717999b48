package dev.lambdaoutbox.store.deadletter.internal;

import dev.lambdaoutbox.store.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * A WHERE clause over the dead-letter table and its bind values, built from a filter, a keyset
 * position and id lists. Values are always bound, never spliced into the SQL.
 */
public final class Conditions {
  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement ps, int index) throws SQLException;
  }

  private final SqlDialect dialect;
  private final List<String> clauses = new ArrayList<>();
  private final List<Binder> binders = new ArrayList<>();

  public Conditions(SqlDialect dialect) {
    this.dialect = dialect;
  }

  /** The criteria {@code filter} sets. */
  public Conditions matching(DeadLetterFilter filter) {
    text("event_type", filter.eventType());
    text("aggregate_type", filter.aggregateType());
    text("aggregate_id", filter.aggregateId());
    text("error_code", filter.errorCode());
    if (filter.deadFrom() != null) {
      add("dead_at >= ?", instant(filter.deadFrom()));
    }
    if (filter.deadTo() != null) {
      add("dead_at < ?", instant(filter.deadTo()));
    }
    return this;
  }

  /** Rows after {@code cursor} in listing order (dead_at, id); no condition for null. */
  public Conditions after(DeadLetterCursor cursor) {
    if (cursor != null) {
      add("(dead_at > ? OR (dead_at = ? AND id > ?))", instant(cursor.deadAt()));
      binders.add(instant(cursor.deadAt()));
      binders.add(uuid(cursor.id()));
    }
    return this;
  }

  /** {@code column IN (...)} over ids; the list must not be empty. */
  public Conditions idIn(String column, Collection<UUID> ids) {
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("ids must not be empty");
    }
    clauses.add(column + " IN (" + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")");
    for (UUID id : ids) {
      binders.add(uuid(id));
    }
    return this;
  }

  /** {@code column IN (...)} over strings; the list must not be empty. */
  public Conditions textIn(String column, Collection<String> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("values must not be empty");
    }
    clauses.add(
        column + " IN (" + String.join(", ", Collections.nCopies(values.size(), "?")) + ")");
    for (String value : values) {
      binders.add((ps, i) -> ps.setString(i, value));
    }
    return this;
  }

  /** " WHERE a AND b", or "" when there is no condition. */
  public String where() {
    return clauses.isEmpty() ? "" : " WHERE " + String.join(" AND ", clauses);
  }

  /** Binds the values from parameter {@code first} on; returns the next free parameter index. */
  public int bind(PreparedStatement ps, int first) throws SQLException {
    int i = first;
    for (Binder b : binders) {
      b.bind(ps, i++);
    }
    return i;
  }

  private void text(String column, String value) {
    if (value != null) {
      add(column + " = ?", (ps, i) -> ps.setString(i, value));
    }
  }

  private void add(String clause, Binder binder) {
    clauses.add(clause);
    binders.add(binder);
  }

  private Binder instant(Instant value) {
    return (ps, i) -> JdbcValues.setInstant(ps, i, value, dialect);
  }

  private Binder uuid(UUID value) {
    return (ps, i) -> JdbcValues.setUuid(ps, i, value, dialect);
  }
}
