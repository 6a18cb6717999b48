package dev.lambdaoutbox.store.model.deadletter;

import java.time.Instant;
import java.util.List;

/**
 * How the dead letters a filter matches break down by error code and event type.
 *
 * @param total rows the filter matches, counted up to {@link DeadLetter#COUNT_CAP} + 1 (the oldest
 *     deaths first)
 * @param groups one per (error code, event type), largest first, of the rows counted
 */
public record DeadLetterSummary(long total, List<Group> groups) {
  public DeadLetterSummary {
    groups = List.copyOf(groups);
  }

  /** Whether more than {@link DeadLetter#COUNT_CAP} rows match: the counts stopped there. */
  public boolean totalCapped() {
    return total > DeadLetter.COUNT_CAP;
  }

  public record Group(
      String errorCode, String eventType, long count, Instant oldestDeadAt, Instant newestDeadAt) {}
}
