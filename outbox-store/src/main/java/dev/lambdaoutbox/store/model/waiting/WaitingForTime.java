package dev.lambdaoutbox.store.model.waiting;

import dev.lambdaoutbox.store.model.Backlog;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The outbox rows that wait for their time ({@link dev.lambdaoutbox.store.internal.rows.DueTimes}):
 * how many, and the first of them to come due.
 *
 * @param rows the rows waiting, counted up to {@link Backlog#WAITING_COUNT_CAP} plus one
 * @param next the first to come due, in due order, a bounded few
 */
public record WaitingForTime(long rows, List<Due> next) {
  public WaitingForTime {
    next = List.copyOf(next);
  }

  /** Whether more rows wait than were counted. */
  public boolean rowsCapped() {
    return rows > Backlog.WAITING_COUNT_CAP;
  }

  /** One row waiting for its time, and that time ({@code not_before}). */
  public record Due(
      UUID id, String aggregateType, String aggregateId, String eventType, Instant notBefore) {
    public Due {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(notBefore, "notBefore");
    }
  }
}
