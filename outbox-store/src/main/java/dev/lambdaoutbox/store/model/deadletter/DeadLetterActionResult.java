package dev.lambdaoutbox.store.model.deadletter;

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
 * @param released aggregates parked behind the dead letters replayed or discarded, now released (in
 *     a dry run: that would be), each with the events it had waiting
 */
public record DeadLetterActionResult(
    boolean dryRun,
    List<UUID> applied,
    List<Skipped> skipped,
    boolean moreMatching,
    int batches,
    List<ParkedKey> released) {

  public DeadLetterActionResult {
    applied = List.copyOf(applied);
    skipped = List.copyOf(skipped);
    released = List.copyOf(released);
  }

  /** A result that released no parked aggregate. */
  public DeadLetterActionResult(
      boolean dryRun,
      List<UUID> applied,
      List<Skipped> skipped,
      boolean moreMatching,
      int batches) {
    this(dryRun, applied, skipped, moreMatching, batches, List.of());
  }

  public record Skipped(UUID id, SkipReason reason) {}
}
