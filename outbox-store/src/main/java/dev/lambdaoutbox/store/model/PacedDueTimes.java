package dev.lambdaoutbox.store.model;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * Due times that space rows out at a capped rate: the i-th is {@code start + i / perSecond}
 * seconds, to the microsecond. Rows given these times in {@code next_attempt_at} are claimed no
 * faster than the rate, because a claim takes only rows that are due: the pacing needs no process
 * that stays up, and outlasts the invocation that wrote it. A paced step that writes {@code n} rows
 * continues with {@link #after(long) after(n)}.
 *
 * @param start the first row's due time
 * @param perSecond rows a second, 1 to {@link #MAX_PER_SECOND}
 */
public record PacedDueTimes(Instant start, int perSecond) {
  /** The fastest pace: beyond it a pace is no pace (a poller run claims more than this at once). */
  public static final int MAX_PER_SECOND = 10_000;

  public PacedDueTimes {
    Objects.requireNonNull(start, "start");
    if (perSecond < 1 || perSecond > MAX_PER_SECOND) {
      throw new IllegalArgumentException(
          "perSecond must be 1 to " + MAX_PER_SECOND + ", not " + perSecond);
    }
    start = start.truncatedTo(ChronoUnit.MICROS);
  }

  /**
   * The pace that follows rows already due up to {@code lastDue} (null: none), starting no earlier
   * than {@code now}: one interval after the last, so that two steps never crowd together.
   */
  public static PacedDueTimes following(Instant lastDue, Instant now, int perSecond) {
    PacedDueTimes from = new PacedDueTimes(now, perSecond);
    if (lastDue == null) {
      return from;
    }
    Instant next = new PacedDueTimes(lastDue, perSecond).due(1);
    return next.isAfter(from.start()) ? new PacedDueTimes(next, perSecond) : from;
  }

  /** The i-th due time, i from 0. */
  public Instant due(long i) {
    if (i < 0) {
      throw new IllegalArgumentException("i must not be negative, not " + i);
    }
    return start.plus(Duration.ofNanos(Math.multiplyExact(i, 1_000_000L) / perSecond * 1_000L));
  }

  /** The pace of the rows after the first {@code n}. */
  public PacedDueTimes after(long n) {
    return new PacedDueTimes(due(n), perSecond);
  }
}
