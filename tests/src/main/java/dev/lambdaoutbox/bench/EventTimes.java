package dev.lambdaoutbox.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the latency harness learns about each event of one measurement, in microseconds of the wall
 * clock (the broker stamps its own times with the same machine's clock): when its transaction
 * committed, when a claim handed it to the poller, when the publish call that carried it returned,
 * and when the broker accepted it. Also the duration of each claim, publish call and completion of
 * the poller's rounds.
 *
 * <p>Only events committed while {@link #measuring} is on count; the rest (warm-up) are published
 * like any other, and their times kept but not counted. (A row may be claimed, even published,
 * before its writer has noted the commit, so every time is kept and matched up at the end.)
 */
final class EventTimes {
  private final Map<UUID, Long> committed = new ConcurrentHashMap<>();
  private final Map<UUID, Long> claimed = new ConcurrentHashMap<>();
  private final Map<UUID, Long> publishReturned = new ConcurrentHashMap<>();
  private final Map<UUID, Long> accepted = new ConcurrentHashMap<>();
  private final Collection<Long> claimMicros = new ConcurrentLinkedQueue<>();
  private final Collection<Long> publishMicros = new ConcurrentLinkedQueue<>();
  private final Collection<Long> completeMicros = new ConcurrentLinkedQueue<>();
  private final Collection<Long> writerLagMicros = new ConcurrentLinkedQueue<>();
  private volatile boolean measuring;

  /** The wall clock now, in microseconds since the epoch. */
  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  void measuring(boolean on) {
    measuring = on;
  }

  /**
   * A writer's transaction committed these events at {@code micros}, {@code lagMicros} after the
   * first of them was due.
   */
  void committed(List<UUID> ids, long micros, long lagMicros) {
    if (measuring) {
      for (UUID id : ids) {
        committed.put(id, micros);
      }
      writerLagMicros.add(lagMicros);
    }
  }

  void claimed(List<UUID> ids, long micros, long tookMicros) {
    for (UUID id : ids) {
      claimed.putIfAbsent(id, micros);
    }
    if (measuring) {
      claimMicros.add(tookMicros);
    }
  }

  void publishReturned(List<UUID> ids, long micros, long tookMicros) {
    for (UUID id : ids) {
      publishReturned.putIfAbsent(id, micros);
    }
    if (measuring) {
      publishMicros.add(tookMicros);
    }
  }

  void completed(long tookMicros) {
    if (measuring) {
      completeMicros.add(tookMicros);
    }
  }

  /** The broker accepted the event at {@code micros}; only the first copy counts. */
  void accepted(UUID id, long micros) {
    accepted.putIfAbsent(id, micros);
  }

  Set<UUID> measuredIds() {
    return committed.keySet();
  }

  int measured() {
    return committed.size();
  }

  /** Measured events the broker accepted. */
  int acceptedCount() {
    return countMeasured(accepted);
  }

  /** Measured events a publish call has carried (accepted or not). */
  int handedToBroker() {
    return countMeasured(publishReturned);
  }

  private int countMeasured(Map<UUID, Long> stamped) {
    int n = 0;
    for (UUID id : committed.keySet()) {
      if (stamped.containsKey(id)) {
        n++;
      }
    }
    return n;
  }

  /** Broker acceptance minus commit, per event that arrived, in milliseconds. */
  double[] commitToAcceptedMillis() {
    return between(committed, accepted);
  }

  /** Claim minus commit: the wait for a claim (the poll interval, a round in progress). */
  double[] commitToClaimMillis() {
    return between(committed, claimed);
  }

  /** Broker acceptance minus claim: planning, the batch calls, the broker's own time. */
  double[] claimToAcceptedMillis() {
    return between(claimed, accepted);
  }

  double[] claimCallMillis() {
    return millis(claimMicros);
  }

  double[] publishCallMillis() {
    return millis(publishMicros);
  }

  double[] completeCallMillis() {
    return millis(completeMicros);
  }

  /** How late writers committed against their schedule (one value per transaction). */
  double[] writerLagMillis() {
    return millis(writerLagMicros);
  }

  private double[] between(Map<UUID, Long> from, Map<UUID, Long> to) {
    List<Double> values = new ArrayList<>(to.size());
    for (UUID id : committed.keySet()) {
      Long start = from.get(id);
      Long end = to.get(id);
      if (start != null && end != null) {
        values.add((end - start) / 1000.0);
      }
    }
    return values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
  }

  private static double[] millis(Collection<Long> micros) {
    return micros.stream().mapToDouble(m -> m / 1000.0).sorted().toArray();
  }
}
