package dev.lambdaoutbox.store.deadletter;

import java.util.List;
import java.util.Optional;

/**
 * One page of the dead-letter listing.
 *
 * @param entries the rows, oldest death first
 * @param next where the following page starts; null on the last page
 */
public record DeadLetterPage(List<Entry> entries, DeadLetterCursor next) {
  public DeadLetterPage {
    entries = List.copyOf(entries);
  }

  public Optional<DeadLetterCursor> nextCursor() {
    return Optional.ofNullable(next);
  }

  /**
   * A listed row. To keep pages small its payload is only the first characters of the stored one.
   *
   * @param deadLetter the row, with {@code payload} cut to the preview length
   * @param payloadLength the stored payload's length in characters
   */
  public record Entry(DeadLetter deadLetter, int payloadLength) {
    public boolean payloadTruncated() {
      return deadLetter.payload().length() < payloadLength;
    }
  }
}
