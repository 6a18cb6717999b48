package dev.lambdaoutbox.poller.internal.invocation;

/**
 * How many rows the next claim asks for: it doubles after a full claim, up to the largest ({@code
 * OUTBOX_MAX_BATCH_SIZE}), and falls back to the first ({@code OUTBOX_BATCH_SIZE}) after a short
 * one. A backlog is drained in claims big enough to keep every call in flight busy (a claim of 100
 * rows is ten batch calls, not enough for eight in flight to overlap the claims), while an outbox
 * that is nearly empty is claimed, and locked, a few rows at a time.
 *
 * <p>Two bounds keep a larger claim harmless. A claim cut by its result budget in bytes says how
 * many rows fit: the next asks for no more than that, as more rows would only be locked and let go.
 * And a claim asks for no more rows than the pace of the last round publishes in half the time its
 * rows may still be sent ({@link #withinPace}): the rows in hand and those claimed ahead share that
 * time, so a slow or capped destination is not claimed for faster than it takes them.
 */
final class ClaimSize {
  private final int first;
  private final int max;

  /**
   * @param first the first claim of a run and the one after a short claim, the smallest
   * @param max the largest claim
   */
  ClaimSize(int first, int max) {
    if (first < 1 || max < first) {
      throw new IllegalArgumentException(
          "sizes: need 1 <= first <= max, were " + first + ", " + max);
    }
    this.first = first;
    this.max = max;
  }

  int first() {
    return first;
  }

  /**
   * The size after a claim that asked for {@code asked} rows and took {@code claimed}, {@code
   * stoppedAtBudget} when its bytes cut it short.
   */
  int next(int asked, int claimed, boolean stoppedAtBudget) {
    if (stoppedAtBudget) {
      return Math.max(first, Math.min(asked, claimed));
    }
    if (claimed >= asked) {
      return (int) Math.min(max, 2L * asked);
    }
    return first;
  }

  /**
   * {@code size}, at most what {@code rowsPerSecond} (the last round's pace; NaN while none is
   * known) publishes in half of {@code windowMillis} (how long calls may still start for rows
   * claimed now), and never below the first size.
   */
  int withinPace(int size, double rowsPerSecond, long windowMillis) {
    if (size <= first) {
      return size;
    }
    if (!(rowsPerSecond > 0) || windowMillis <= 0) {
      return first;
    }
    double publishable = rowsPerSecond * windowMillis / 2000.0;
    return publishable >= size ? size : Math.max(first, (int) publishable);
  }
}
