package dev.lambdaoutbox.store.model.deadletter;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The dead letters of one failure fingerprint ({@link FailureFingerprint}): same error code, same
 * reason once masked, same event type, same destination.
 *
 * @param count the group's rows, counted up to {@link DeadLetter#COUNT_CAP} + 1 (then more)
 * @param firstDeadAt the oldest death in the group
 * @param lastDeadAt the newest death in the group
 * @param sampleIds a few of its rows, oldest death first
 */
public record FailureGroup(
    String fingerprint,
    String errorCode,
    String maskedReason,
    String eventType,
    String destination,
    long count,
    Instant firstDeadAt,
    Instant lastDeadAt,
    List<UUID> sampleIds) {
  public FailureGroup {
    sampleIds = List.copyOf(sampleIds);
  }

  /** Whether the group has more than {@link DeadLetter#COUNT_CAP} rows (the count stopped). */
  public boolean countCapped() {
    return count > DeadLetter.COUNT_CAP;
  }
}
