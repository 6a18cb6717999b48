package dev.lambdaoutbox.store.deadletter.internal;

import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult.Skipped;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Gathers what the batches of one replay or discard did. A batch reports into a fresh {@link
 * Batch}, merged only once its transaction has committed, so a rolled-back batch leaves no trace in
 * the report.
 */
public final class ResultCollector {
  private final boolean dryRun;
  private final List<UUID> applied = new ArrayList<>();
  private final List<Skipped> skipped = new ArrayList<>();
  private final Set<String> claimedKeys = new HashSet<>();
  private final List<ParkedKey> released = new ArrayList<>();
  private int batches;

  public ResultCollector(boolean dryRun) {
    this.dryRun = dryRun;
  }

  public void merge(Batch batch) {
    applied.addAll(batch.applied);
    skipped.addAll(batch.skipped);
    claimedKeys.addAll(batch.claimedKeys);
    released.addAll(batch.released);
    if (!dryRun && batch.examined > 0) {
      batches++;
    }
  }

  /**
   * Idempotency keys earlier batches of a dry run would have put into the outbox: a later row with
   * the same key would be skipped.
   */
  public Set<String> claimedKeys() {
    return Set.copyOf(claimedKeys);
  }

  public DeadLetterActionResult result(boolean moreMatching) {
    return new DeadLetterActionResult(dryRun, applied, skipped, moreMatching, batches, released);
  }

  /** What one batch did. */
  public static final class Batch {
    final List<UUID> applied = new ArrayList<>();
    final List<Skipped> skipped = new ArrayList<>();
    final Set<String> claimedKeys = new HashSet<>();
    final List<ParkedKey> released = new ArrayList<>();
    int examined;

    public void applied(UUID id) {
      applied.add(id);
      examined++;
    }

    public void skipped(UUID id, SkipReason reason) {
      skipped.add(new Skipped(id, reason));
      examined++;
    }

    /** An aggregate parked behind a dead letter this batch handled, released (or would be). */
    public void released(ParkedKey key) {
      released.add(key);
    }

    public void claimedKey(String key) {
      claimedKeys.add(key);
    }

    /** Puts the results in the order of {@code requested}, as the operator listed the ids. */
    public Batch inOrderOf(List<UUID> requested) {
      Map<UUID, Integer> position = new HashMap<>();
      for (int i = 0; i < requested.size(); i++) {
        position.put(requested.get(i), i);
      }
      applied.sort(Comparator.comparing(position::get));
      skipped.sort(Comparator.comparing(s -> position.get(s.id())));
      return this;
    }

    /** Rows this batch put back (or would). */
    public int appliedCount() {
      return applied.size();
    }

    /** Adds what {@code other}, part of the same transaction, did. */
    public void merge(Batch other) {
      applied.addAll(other.applied);
      skipped.addAll(other.skipped);
      claimedKeys.addAll(other.claimedKeys);
      released.addAll(other.released);
      examined += other.examined;
    }

    /** Rows this batch looked at. */
    public int examined() {
      return examined;
    }
  }
}
