package dev.lambdaoutbox.store.model;

import java.time.Duration;

/**
 * What waits in the outbox and beside it, as the poller reports it after each run.
 *
 * @param oldestUnpublishedAge how long the oldest PENDING row has been free to go, whatever it
 *     waits for (due, backing off, deferred, leased): counted from its creation, or from the time
 *     it waited for when later ({@code not_before}), so a row waiting for its time is not late;
 *     zero when there is none. A replayed row counts from its replay.
 * @param deadLetters rows in the dead-letter table, counted up to {@link #DEAD_LETTER_COUNT_CAP}
 *     plus one: above the cap it is {@code DEAD_LETTER_COUNT_CAP + 1}, meaning "more"
 * @param destinationsDown destinations marked down and not stale (see {@link
 *     dev.lambdaoutbox.store.health.DestinationHealthStore#STALE_AFTER})
 * @param destinationsMisconfigured those of them marked {@link DestinationState#MISCONFIGURED}
 * @param staleDestinations health rows that are stale and not counted
 * @param parkedKeys aggregates parked behind a dead letter ({@link Ordering#AGGREGATE}), counted up
 *     to {@link #PARKED_COUNT_CAP} plus one
 * @param parkedEvents their events waiting in the outbox, counted up to {@link #PARKED_COUNT_CAP}
 *     plus one
 * @param waitingOnMisconfigured rows deferred because their destination refuses every message
 *     ({@link DestinationState#MISCONFIGURED}), counted up to {@link #WAITING_COUNT_CAP} plus one
 */
public record Backlog(
    Duration oldestUnpublishedAge,
    long deadLetters,
    int destinationsDown,
    int destinationsMisconfigured,
    int staleDestinations,
    long parkedKeys,
    long parkedEvents,
    long waitingOnMisconfigured) {
  /**
   * Most dead letters {@link Backlog#deadLetters()} counts; beyond it the count stops, so that it
   * costs the same at a million dead letters as at ten thousand.
   */
  public static final int DEAD_LETTER_COUNT_CAP = 10_000;

  /**
   * Most parked keys, and most parked events, {@link Backlog#parkedKeys()} and {@link
   * Backlog#parkedEvents()} count; beyond it the counts stop.
   */
  public static final int PARKED_COUNT_CAP = 10_000;

  /**
   * Most rows {@link Backlog#waitingOnMisconfigured()} counts; beyond it the count stops, so that
   * it costs the same whatever waits.
   */
  public static final int WAITING_COUNT_CAP = 10_000;

  /** Whether there are more dead letters than {@link #DEAD_LETTER_COUNT_CAP}. */
  public boolean deadLettersCapped() {
    return deadLetters > DEAD_LETTER_COUNT_CAP;
  }

  /** Whether there are more parked keys or parked events than {@link #PARKED_COUNT_CAP}. */
  public boolean parkedCapped() {
    return parkedKeys > PARKED_COUNT_CAP || parkedEvents > PARKED_COUNT_CAP;
  }
}
