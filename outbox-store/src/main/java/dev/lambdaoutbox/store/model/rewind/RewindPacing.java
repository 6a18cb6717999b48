package dev.lambdaoutbox.store.model.rewind;

import dev.lambdaoutbox.store.model.PacedDueTimes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * How a rewind paces its copies ({@link PacedDueTimes}): each is due {@code 1/eventsPerSecond}
 * after the one before, the first at the database's time now or, when a step continues a rewind,
 * when the previous step's schedule ends, whichever is later. The claim does not take a row before
 * it is due, so the copies go out at no more than the rate however many pollers run, and a rewind
 * outlasts any invocation.
 */
public record RewindPacing(int eventsPerSecond) {
  /** The highest rate a rewind may ask for. */
  public static final int MAX_EVENTS_PER_SECOND = 1_000;

  public RewindPacing {
    if (eventsPerSecond < 1 || eventsPerSecond > MAX_EVENTS_PER_SECOND) {
      throw new IllegalArgumentException(
          "eventsPerSecond must be 1 to " + MAX_EVENTS_PER_SECOND + ", not " + eventsPerSecond);
    }
  }

  /**
   * The due times of {@code count} copies: from {@code now}, or from {@code notBefore} when that is
   * later (null: none), at the rate.
   */
  public List<Instant> dueTimes(Instant now, Instant notBefore, int count) {
    Instant first = notBefore != null && notBefore.isAfter(now) ? notBefore : now;
    PacedDueTimes pace = new PacedDueTimes(first, eventsPerSecond);
    List<Instant> due = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      due.add(pace.due(i));
    }
    return due;
  }

  /** When the copy after the one due at {@code lastDue} may be due: one interval after it. */
  public Instant next(Instant lastDue) {
    return new PacedDueTimes(lastDue, eventsPerSecond).due(1);
  }
}
