package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.SqlDialect;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;

/**
 * What dates the rows of one append (an event's {@code created_at} and {@code next_attempt_at}, a
 * key's {@code first_seen_at}): the database's clock ({@link SqlDialect#now()}), so that no
 * application host's clock decides when an event is due or how old it is; or, for tests that write
 * at chosen times, an instant standing in for it, bound as a parameter.
 *
 * @param at the instant, or null for the database's clock
 */
public record Stamp(Instant at) {
  /** The database's clock, read by each statement. */
  public static final Stamp DATABASE = new Stamp(null);

  /** An instant standing in for the database's clock. */
  public static Stamp at(Instant at) {
    return new Stamp(Objects.requireNonNull(at, "at"));
  }

  /** The value in a statement's VALUES: the database's clock, or a parameter. */
  String sql(SqlDialect dialect) {
    return at == null ? dialect.now() : "?";
  }

  /** Binds the instant at {@code index} when there is one; returns the next parameter's index. */
  int bind(PreparedStatement ps, int index, SqlDialect dialect) throws SQLException {
    if (at == null) {
      return index;
    }
    JdbcValues.setInstant(ps, index, at, dialect);
    return index + 1;
  }
}
