package dev.lambdaoutbox.store.model.rewind;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What a rewind would copy, read without changing anything.
 *
 * @param matching delivered events the range matches among the first {@code scanned} sent rows of
 *     the range
 * @param complete whether those were all the range's sent rows; if not, {@code matching} is a lower
 *     bound
 * @param sample the first matching events, oldest sent first
 */
public record RewindPreview(long matching, long scanned, boolean complete, List<Sample> sample) {
  public RewindPreview {
    sample = List.copyOf(sample);
  }

  /** One event a rewind would copy, its payload cut to a preview. */
  public record Sample(
      UUID id,
      String eventType,
      String aggregateType,
      String aggregateId,
      Instant occurredAt,
      Instant sentAt,
      String payloadPreview,
      long payloadLength) {}
}
