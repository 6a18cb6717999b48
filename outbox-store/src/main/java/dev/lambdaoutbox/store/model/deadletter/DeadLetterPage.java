package dev.lambdaoutbox.store.model.deadletter;

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
   * @param payloadLength the stored payload's length in characters (code points)
   */
  public record Entry(DeadLetter deadLetter, int payloadLength) {
    /**
     * Whether the payload is shorter here than as stored. Both lengths count characters as the
     * databases do (code points), so a preview of emoji is not taken for a whole payload.
     */
    public boolean payloadTruncated() {
      String payload = deadLetter.payload();
      return payload.codePointCount(0, payload.length()) < payloadLength;
    }
  }
}
