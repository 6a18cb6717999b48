package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * What dates the rows of one append (an event's {@code created_at}, its due time {@code
 * next_attempt_at} and {@code not_before}, a key's {@code first_seen_at}): the database's clock
 * ({@link SqlDialect#now()}), so that no application host's clock decides when an event is due or
 * how old it is; or, for tests that write at chosen times, an instant standing in for it, bound as
 * a parameter.
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

  /**
   * The due time of an event that waits for its time ({@link OutboxEvent#waitsForTime()}), and of
   * the others in its statement: on the database's clock, the later of its time plus a delay in
   * microseconds and a time given (two parameters: a delay of 0 and no time for an event due now);
   * for an instant standing in for the clock, computed here (one parameter).
   */
  String dueSql(SqlDialect dialect) {
    if (at != null) {
      return "?";
    }
    String now = dialect.now();
    // PostgreSQL's GREATEST ignores a NULL argument; MySQL's would return NULL.
    return dialect == SqlDialect.POSTGRESQL
        ? "GREATEST("
            + now
            + " + CAST(? AS double precision) * INTERVAL '1 microsecond', CAST(? AS timestamptz))"
        : "GREATEST(TIMESTAMPADD(MICROSECOND, ?, "
            + now
            + "), COALESCE(CAST(? AS DATETIME(6)), "
            + now
            + "))";
  }

  /** Binds {@code event}'s due time for {@link #dueSql}; returns the next parameter's index. */
  int bindDue(PreparedStatement ps, int index, OutboxEvent event, SqlDialect dialect)
      throws SQLException {
    Duration delay = event.delay().orElse(Duration.ZERO);
    Instant notBefore = event.notBefore().orElse(null);
    if (at != null) {
      Instant due = at.plus(delay);
      if (notBefore != null && notBefore.isAfter(due)) {
        due = notBefore;
      }
      JdbcValues.setInstant(ps, index, due.truncatedTo(ChronoUnit.MICROS), dialect);
      return index + 1;
    }
    ps.setLong(index, delay.toNanos() / 1_000);
    JdbcValues.setInstant(ps, index + 1, notBefore, dialect);
    return index + 2;
  }
}
