package dev.lambdaoutbox.writer.internal;

import java.util.List;

/**
 * What writing one statement's worth of events did: wrote them all, or was refused because a key is
 * taken.
 *
 * @param refusal null when every event was written
 */
public record ChunkOutcome(Refusal refusal) {
  private static final ChunkOutcome WRITTEN = new ChunkOutcome(null);

  /** Where the refusing key was found to be taken. */
  public enum HeldIn {
    /** The idempotency key table: an event appended within the window holds it. */
    KEY_TABLE,
    /**
     * An outbox row carries the key although the key table does not hold it: the row outlived the
     * window (a long outage), was written before the key table existed, or came back by a replay.
     */
    OUTBOX_ROW
  }

  /**
   * A refused chunk.
   *
   * @param heldIn where to look for the event holding the key
   * @param suspects the keys of the chunk that may be the taken one, in the caller's order
   * @param keysWritten whether this chunk's own key rows were written and must be taken back
   */
  public record Refusal(HeldIn heldIn, List<String> suspects, boolean keysWritten) {
    public Refusal {
      suspects = List.copyOf(suspects);
    }
  }

  public static ChunkOutcome written() {
    return WRITTEN;
  }

  public static ChunkOutcome refused(HeldIn heldIn, List<String> suspects, boolean keysWritten) {
    return new ChunkOutcome(new Refusal(heldIn, suspects, keysWritten));
  }

  public boolean isRefused() {
    return refusal != null;
  }
}
