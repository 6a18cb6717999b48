package dev.lambdaoutbox.store.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one {@link dev.lambdaoutbox.store.OutboxStore#purge} removed.
 *
 * @param purged rows deleted, by what they were (e.g. {@code "sentRows"}), in the pass's order
 * @param caughtUp every kind's last batch came back short: nothing more was due for purging
 */
public record PurgeReport(Map<String, Long> purged, boolean caughtUp) {
  public PurgeReport {
    purged = Collections.unmodifiableMap(new LinkedHashMap<>(purged));
  }

  /** Rows deleted in all. */
  public long total() {
    return purged.values().stream().mapToLong(Long::longValue).sum();
  }
}
