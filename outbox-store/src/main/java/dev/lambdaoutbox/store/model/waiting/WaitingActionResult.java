package dev.lambdaoutbox.store.model.waiting;

import java.util.List;
import java.util.UUID;

/**
 * What a retarget or dead-lettering of waiting rows did, or in a dry run would do.
 *
 * @param dryRun true when nothing was changed and {@code applied} lists what would have been
 * @param applied the rows moved, oldest first
 * @param moreWaiting rows beyond the limit still wait for the destination
 * @param batches transactions committed (zero in a dry run)
 * @param parkedEvents with ordering, events behind the rows dead-lettered that now wait for them
 *     (parked aggregates); zero otherwise and in a dry run
 */
public record WaitingActionResult(
    boolean dryRun, List<UUID> applied, boolean moreWaiting, int batches, long parkedEvents) {
  public WaitingActionResult {
    applied = List.copyOf(applied);
  }
}
