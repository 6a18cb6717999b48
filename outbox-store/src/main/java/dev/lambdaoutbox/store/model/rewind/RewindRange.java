package dev.lambdaoutbox.store.model.rewind;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Which delivered events a rewind copies: those marked sent from {@code sentFrom} (inclusive) to
 * {@code sentTo} (exclusive), and of those, where given, one event type and one aggregate. Copies a
 * rewind made are never copied again.
 *
 * @param eventType null for every event type
 * @param aggregateType null for every aggregate type
 * @param aggregateId null for every aggregate (with or without {@code aggregateType})
 */
public record RewindRange(
    Instant sentFrom, Instant sentTo, String eventType, String aggregateType, String aggregateId) {
  /** The longest range one rewind may cover: the longest retention the poller keeps sent rows. */
  public static final Duration MAX_SPAN = Duration.ofDays(31);

  public RewindRange {
    Objects.requireNonNull(sentFrom, "sentFrom");
    Objects.requireNonNull(sentTo, "sentTo");
    if (!sentFrom.isBefore(sentTo)) {
      throw new IllegalArgumentException("sentFrom " + sentFrom + " must be before " + sentTo);
    }
    if (Duration.between(sentFrom, sentTo).compareTo(MAX_SPAN) > 0) {
      throw new IllegalArgumentException(
          "a rewind covers at most "
              + MAX_SPAN.toDays()
              + " days, not "
              + sentFrom
              + " to "
              + sentTo);
    }
  }

  /** The range's fields as one text, for a fingerprint that ties a cursor to its rewind. */
  public String describe() {
    return sentFrom + "|" + sentTo + "|" + eventType + "|" + aggregateType + "|" + aggregateId;
  }
}
