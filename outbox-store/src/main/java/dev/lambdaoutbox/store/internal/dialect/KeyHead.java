package dev.lambdaoutbox.store.internal.dialect;

import java.util.Objects;

/**
 * One aggregate the ordered claim's key walk visited ({@link OutboxSql#walkKeys}): its key, the id
 * of its head (its first PENDING row in seq order, as stored: an unreadable row's need not be a
 * UUID; null where it has none now, as when it was published while the walk read), and whether that
 * head may be claimed now (due, so not under a live lease, and its aggregate not parked).
 */
public record KeyHead(Key key, String headId, boolean ready) {
  public KeyHead {
    Objects.requireNonNull(key, "key");
    if (ready) {
      Objects.requireNonNull(headId, "headId");
    }
  }

  /** An aggregate's key, the position of the walk in the key index. */
  public record Key(String aggregateType, String aggregateId) {
    public Key {
      Objects.requireNonNull(aggregateType, "aggregateType");
      Objects.requireNonNull(aggregateId, "aggregateId");
    }
  }
}
