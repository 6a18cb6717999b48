package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;

/**
 * The database's current time, read in a statement of its own: what {@link
 * dev.lambdaoutbox.store.clock.DatabaseClock} sets itself by. The same in every dialect apart from
 * the function that says it ({@link Syntax#now()}), the one the writer and the columns' defaults
 * use.
 */
public final class PortableClock {
  private final String now;

  public PortableClock(SqlTemplate sql) {
    this.now = sql.fill("SELECT {utc:" + sql.syntax().now() + "} AS now");
  }

  /** The database's current time, to the microsecond. */
  public Instant now(SqlSession s) {
    return s.query(now, Params.of()).get(0).instant("now");
  }
}
