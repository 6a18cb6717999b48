package dev.lambdaoutbox.store.model.deadletter;

import java.util.List;

/**
 * Aggregates parked behind a dead letter, as {@code DeadLetterStore.parkedKeys} lists them.
 *
 * @param keys up to the limit asked for, longest parked first
 * @param total the parked keys, counted up to {@link DeadLetter#COUNT_CAP} + 1
 */
public record ParkedKeys(List<ParkedKey> keys, long total) {
  public ParkedKeys {
    keys = List.copyOf(keys);
  }

  /**
   * Whether there are more than {@link DeadLetter#COUNT_CAP} parked keys (then {@code total}
   * stopped).
   */
  public boolean totalCapped() {
    return total > DeadLetter.COUNT_CAP;
  }
}
