package dev.lambdaoutbox.store.model.rewind;

import java.time.Instant;

/**
 * What one step of a rewind did, in one transaction: the copies it scheduled and where the rewind
 * stands.
 *
 * @param copied copies written by this step
 * @param alreadyCopied rows this rewind had copied before (a step sent again): left as they are
 * @param firstDueAt the first copy's due time; null when the step copied none
 * @param lastDueAt the last copy's due time; null when the step copied none
 * @param reachedSentAt the sent time the walk reached: every matching row sent before it is copied
 * @param next where the next step starts; null when the range is done
 */
public record RewindStep(
    java.util.UUID rewindId,
    int copied,
    int alreadyCopied,
    Instant firstDueAt,
    Instant lastDueAt,
    Instant reachedSentAt,
    long copiedInAll,
    RewindCursor next) {
  public boolean done() {
    return next == null;
  }
}
