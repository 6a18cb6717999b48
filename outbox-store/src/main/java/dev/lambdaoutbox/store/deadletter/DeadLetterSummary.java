package dev.lambdaoutbox.store.deadletter;

import java.time.Instant;
import java.util.List;

/**
 * How the dead letters a filter matches break down by error code and event type.
 *
 * @param total rows the filter matches
 * @param groups one per (error code, event type), largest first
 */
public record DeadLetterSummary(long total, List<Group> groups) {
  public DeadLetterSummary {
    groups = List.copyOf(groups);
  }

  public record Group(
      String errorCode, String eventType, long count, Instant oldestDeadAt, Instant newestDeadAt) {}
}
