package dev.lambdaoutbox.store.model;

import java.util.Locale;

/**
 * Whether the poller keeps each aggregate's events in order ({@code OUTBOX_ORDERING}).
 *
 * <ul>
 *   <li>{@link #NONE}: due rows are claimed oldest first, as many per aggregate as are due; an
 *       event that fails may be overtaken by later events of its aggregate.
 *   <li>{@link #AGGREGATE}: the ordering key is (aggregate type, aggregate id). A claim takes only
 *       the oldest unpublished event of each key, and only when no earlier event of that key is
 *       leased, backing off, deferred or parked, so at most one event per key is in flight across
 *       all pollers. A failing event holds up its key alone; a dead-lettered one parks its key
 *       until an operator replays or discards it.
 * </ul>
 */
public enum Ordering {
  NONE,
  AGGREGATE;

  /**
   * The default of {@code OutboxStore.Builder#parkingChunkSize}: the most rows behind one head that
   * a completion holds back, with {@link #AGGREGATE}.
   */
  public static final int PARKING_CHUNK_SIZE = 5_000;

  /** The value of {@code text} ({@code none} or {@code aggregate}, any case), or null. */
  public static Ordering parse(String text) {
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "none" -> NONE;
      case "aggregate" -> AGGREGATE;
      default -> null;
    };
  }
}
