package dev.lambdaoutbox.store.deadletter;

import java.util.List;
import java.util.UUID;

/**
 * What a replay or discard did, or in a dry run would do.
 *
 * @param dryRun true when nothing was changed and {@code applied} lists what would have been
 * @param applied ids replayed or discarded, in the order handled
 * @param skipped ids left alone, with the reason
 * @param moreMatching for a filter-based action: rows beyond the limit still match the filter
 * @param batches transactions committed (zero in a dry run)
 */
public record DeadLetterActionResult(
    boolean dryRun, List<UUID> applied, List<Skipped> skipped, boolean moreMatching, int batches) {

  public DeadLetterActionResult {
    applied = List.copyOf(applied);
    skipped = List.copyOf(skipped);
  }

  public record Skipped(UUID id, SkipReason reason) {}
}
