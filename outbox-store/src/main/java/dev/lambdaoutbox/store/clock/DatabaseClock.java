package dev.lambdaoutbox.store.clock;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.ClockSql;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * The database's clock, as this process sees it: the host's clock plus how far the database's is
 * from it, read from the database ({@link dev.lambdaoutbox.core.SqlDialect#now()}, the clock the
 * writer dates rows with). Whatever the hosts' clocks say, the poller's claims, leases, backoff,
 * retention and the oldest-age metric, and the reprocessor's replays, compare the database's times
 * with the database's time.
 *
 * <p>A reading costs one statement and lasts {@link #REFRESH_AFTER} on the host's clock; {@link
 * #sync()} reads again when it is older (or the host's clock went back), and {@link #instant()}
 * reads only when there has been no reading yet. The offset is taken from the host's time just
 * before the statement, so this clock is never behind the database's and at most one round trip
 * ahead: a row is never due later than it should be, only up to a round trip early.
 *
 * <p>Read outside any transaction of the executor: {@link #sync()} and a first {@link #instant()}
 * run a transaction of their own. Thread-safe.
 */
public final class DatabaseClock extends Clock {
  /**
   * How long a reading of the database's time is used before the next one: one statement (over the
   * Data API three requests) per container every five minutes, against host clocks that NTP slews
   * by 0.5 ms a second at most, 0.15 s in that time.
   */
  public static final Duration REFRESH_AFTER = Duration.ofMinutes(5);

  private final SqlExecutor executor;
  private final ClockSql sql;
  private final Clock host;
  private volatile Reading reading;

  /** How far the database's clock was ahead of the host's, read at {@code hostAt}. */
  private record Reading(Duration offset, Instant hostAt) {}

  private DatabaseClock(SqlExecutor executor, ClockSql sql, Clock host) {
    this.executor = Objects.requireNonNull(executor, "executor");
    this.sql = Objects.requireNonNull(sql, "sql");
    this.host = Objects.requireNonNull(host, "host");
  }

  /** The clock of the database behind {@code executor}, over the host's system clock. */
  public static DatabaseClock of(SqlExecutor executor) {
    return of(executor, Clock.systemUTC());
  }

  /**
   * The clock of the database behind {@code executor}, over {@code host} (a host clock a test
   * skews, say).
   */
  public static DatabaseClock of(SqlExecutor executor, Clock host) {
    Objects.requireNonNull(executor, "executor");
    return new DatabaseClock(
        executor, StoreSql.of(executor.dialect(), OutboxTables.defaults()).clock(), host);
  }

  /**
   * Reads the database's time again when the last reading is {@link #REFRESH_AFTER} old, or when
   * there is none; otherwise does nothing. For the start of an invocation, or of a store call,
   * outside any transaction.
   *
   * @throws OutboxStoreException when the database's time cannot be read
   */
  public void sync() {
    if (fresh(reading)) {
      return;
    }
    synchronized (this) {
      if (!fresh(reading)) {
        reading = read();
      }
    }
  }

  /** {@link #sync()} when {@code clock} is a database's clock; any other clock is left as it is. */
  public static void sync(Clock clock) {
    if (clock instanceof DatabaseClock database) {
      database.sync();
    }
  }

  /**
   * How far the database's clock is ahead of the host's (negative: behind), as last read; reads it
   * when it has not been read yet.
   */
  public Duration offset() {
    Reading r = reading;
    if (r == null) {
      sync();
      r = reading;
    }
    return r.offset();
  }

  @Override
  public Instant instant() {
    return host.instant().plus(offset());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    Clock database = this;
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return zone;
      }

      @Override
      public Clock withZone(ZoneId other) {
        return database.withZone(other);
      }

      @Override
      public Instant instant() {
        return database.instant();
      }
    };
  }

  private boolean fresh(Reading r) {
    if (r == null) {
      return false;
    }
    Duration age = Duration.between(r.hostAt(), host.instant());
    return !age.isNegative() && age.compareTo(REFRESH_AFTER) < 0;
  }

  private Reading read() {
    return executor.inTransaction(
        "read the database's time",
        s -> {
          // Taken just before the statement, which reads the database's time after it: the
          // offset is never less than the real one, and more by at most the round trip.
          Instant before = host.instant();
          Instant database = sql.now(s);
          return new Reading(Duration.between(before, database), before);
        });
  }

  @Override
  public String toString() {
    Reading r = reading;
    return "DatabaseClock[" + (r == null ? "not read yet" : "offset " + r.offset()) + "]";
  }
}
