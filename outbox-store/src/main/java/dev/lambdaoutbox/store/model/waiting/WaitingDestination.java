package dev.lambdaoutbox.store.model.waiting;

import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.DestinationHealth;
import java.time.Instant;
import java.util.Objects;

/**
 * A destination marked down, with the outbox rows waiting for it.
 *
 * @param health its row of the destination health table: state, error, since when, next probe
 * @param rows the rows waiting for it, counted up to {@link Backlog#WAITING_COUNT_CAP} plus one
 * @param oldestCreatedAt when the oldest of them was written
 */
public record WaitingDestination(DestinationHealth health, long rows, Instant oldestCreatedAt) {
  public WaitingDestination {
    Objects.requireNonNull(health, "health");
    Objects.requireNonNull(oldestCreatedAt, "oldestCreatedAt");
  }

  /** Whether more rows wait than were counted. */
  public boolean rowsCapped() {
    return rows > Backlog.WAITING_COUNT_CAP;
  }
}
