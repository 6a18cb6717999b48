package dev.lambdaoutbox.store.model.audit;

import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import java.util.List;
import java.util.Optional;

/**
 * One page of the audit listing.
 *
 * @param entries the entries, newest first
 * @param next where the following page starts; null on the last page
 */
public record AuditPage(List<Entry> entries, AuditCursor next) {
  public AuditPage {
    entries = List.copyOf(entries);
  }

  public Optional<AuditCursor> nextCursor() {
    return Optional.ofNullable(next);
  }

  /**
   * A listed audit entry. To keep pages small, the payload of its snapshot is only the first
   * characters of the one recorded (and {@link AuditEntry#details()} holds that cut too).
   *
   * @param entry the entry, its snapshot's payload cut to the preview length
   * @param payloadLength the recorded payload's length in characters (code points); 0 when the
   *     entry holds no snapshot
   */
  public record Entry(AuditEntry entry, int payloadLength) {
    /** Whether the snapshot's payload is shorter here than as recorded. */
    public boolean payloadTruncated() {
      DeadLetter snapshot = entry.snapshot();
      if (snapshot == null) {
        return false;
      }
      String payload = snapshot.payload();
      return payload.codePointCount(0, payload.length()) < payloadLength;
    }
  }
}
