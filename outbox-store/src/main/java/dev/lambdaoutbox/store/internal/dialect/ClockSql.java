package dev.lambdaoutbox.store.internal.dialect;

import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;

/**
 * The database's clock ({@link dev.lambdaoutbox.store.clock.DatabaseClock}): its current time,
 * which every due time and age the stores write or compare is taken from.
 */
public interface ClockSql {
  /** The database's current time, to the microsecond, read by one statement on {@code s}. */
  Instant now(SqlSession s);
}
