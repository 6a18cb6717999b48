package dev.lambdaoutbox.poller.internal.rate;

import dev.lambdaoutbox.poller.internal.log.LogFields;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How fast one poller container sends to each destination, in messages per second, and when each
 * batch call may start so that it keeps to that rate.
 *
 * <p><b>The rate.</b> At most the container's share of the cap ({@link #perPoller}), or unlimited.
 * A throttled call halves it (at most once a second, never below {@link #FLOOR}); each call that is
 * not raises it by a twentieth of the rate where throttling began per second since the last answer
 * (at least {@link #MIN_STEP}). Additive increase, multiplicative decrease: pollers sharing a
 * destination converge on shares of what it takes.
 *
 * <p><b>The schedule.</b> A call of n messages takes n / rate seconds of its destination's time
 * line and starts no earlier than the end of the previous call's share; a call that would wait
 * longer than its caller can afford reserves nothing.
 *
 * <p>The state lives in memory, shared by a container's warm invocations; destinations idle for
 * {@link #FORGET_AFTER} are forgotten beyond {@link #MAX_DESTINATIONS}. Thread-safe.
 */
public final class SendRates {
  /** The lowest rate throttling brings a destination down to, messages per second. */
  public static final double FLOOR = 1.0;

  /** The smallest additive step, messages per second per second of sending: one batch. */
  public static final double MIN_STEP = 10.0;

  /** How the step relates to the rate at which throttling began: a twentieth of it a second. */
  static final double STEP_SHARE = 1.0 / 20;

  /** The least time between two decreases of one destination's rate. */
  static final Duration DECREASE_SPACING = Duration.ofSeconds(1);

  static final int MAX_DESTINATIONS = 1_000;
  static final Duration FORGET_AFTER = Duration.ofMinutes(15);

  private static final double UNLIMITED = Double.POSITIVE_INFINITY;

  private final double cap;
  private final Clock clock;
  private final JsonLogger log;
  private final Map<String, Destination> destinations = new ConcurrentHashMap<>();

  /**
   * @param cap this container's cap, messages per second; {@link Double#POSITIVE_INFINITY} for none
   */
  public SendRates(double cap, Clock clock, JsonLogger log) {
    if (!(cap > 0)) {
      throw new IllegalArgumentException("cap: must be positive, was " + cap);
    }
    this.cap = cap;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = log.forClass(SendRates.class);
  }

  /**
   * One container's cap: {@code maxSendRate} messages per second to each destination shared evenly
   * among the {@code maxConcurrentPollers} that may run at once, so that together they keep to it;
   * 0 is no cap.
   */
  public static double perPoller(int maxSendRate, int maxConcurrentPollers) {
    if (maxSendRate <= 0) {
      return UNLIMITED;
    }
    return (double) maxSendRate / Math.max(1, maxConcurrentPollers);
  }

  /** This container's cap, messages per second; infinite for none. */
  public double cap() {
    return cap;
  }

  /**
   * Reserves the start of a call of {@code messages} to {@code destination}: when it may start
   * (now, or later), or null when that is more than {@code maxWait} away, and then nothing is
   * reserved.
   */
  public Instant reserve(String destination, int messages, Duration maxWait) {
    Destination d = destination(destination);
    synchronized (d) {
      Instant now = clock.instant();
      d.lastUsed = now;
      if (d.rate == UNLIMITED) {
        d.count(now, messages);
        return now;
      }
      Instant slot = d.next.isAfter(now) ? d.next : now;
      if (Duration.between(now, slot).compareTo(maxWait) > 0) {
        return null;
      }
      d.next = slot.plusNanos((long) (messages / d.rate * 1e9));
      d.count(now, messages);
      return slot;
    }
  }

  /**
   * A call to {@code destination} came back: {@code throttleCode} the throttling code it or any of
   * its entries came back with, null when none did.
   */
  public void answered(String destination, String throttleCode) {
    Destination d = destination(destination);
    synchronized (d) {
      Instant now = clock.instant();
      d.lastUsed = now;
      if (throttleCode != null) {
        lower(destination, d, now, throttleCode);
      } else if (d.rate != UNLIMITED) {
        raise(destination, d, now);
      }
      d.lastAnswer = now;
    }
  }

  /** The rate {@code destination} is sent at now, messages per second; infinite when unpaced. */
  public double rate(String destination) {
    Destination d = destinations.get(destination);
    if (d == null) {
      return cap;
    }
    synchronized (d) {
      return d.rate;
    }
  }

  private void lower(String destination, Destination d, Instant now, String code) {
    if (d.loweredAt != null && Duration.between(d.loweredAt, now).compareTo(DECREASE_SPACING) < 0) {
      return;
    }
    double measured = Math.max(d.measured(now), 2 * FLOOR);
    double from = Math.min(d.rate, measured);
    boolean episodeBegins = d.rate == cap;
    if (episodeBegins) {
      d.throttledAt = from;
      d.episodeStart = now;
      d.lowest = from;
    }
    d.rate = Math.max(FLOOR, from / 2);
    d.lowest = Math.min(d.lowest, d.rate);
    d.loweredAt = now;
    Map<String, Object> fields =
        LogFields.of(
            "destination",
            destination,
            "errorCode",
            code,
            "fromPerSecond",
            round(from),
            "ratePerSecond",
            round(d.rate));
    if (episodeBegins) {
      log.info("the destination throttles: its send rate is lowered", fields);
    } else {
      log.debug("the destination still throttles: its send rate is lowered again", fields);
    }
  }

  private void raise(String destination, Destination d, Instant now) {
    if (d.lastAnswer == null || d.rate >= cap) {
      return;
    }
    Duration since = Duration.between(d.lastAnswer, now);
    double seconds = Math.min(1.0, Math.max(0, since.toNanos() / 1e9));
    double step = Math.max(MIN_STEP, d.throttledAt * STEP_SHARE);
    d.rate = Math.min(cap, d.rate + step * seconds);
    if (cap == UNLIMITED && d.rate >= d.throttledAt) {
      d.rate = UNLIMITED;
    }
    if (d.rate == cap) {
      log.info(
          "the destination takes what it is sent again: its send rate is back "
              + (cap == UNLIMITED ? "to no limit" : "at the cap"),
          LogFields.of(
              "destination", destination,
              "lowestPerSecond", round(d.lowest),
              "throttledForSeconds", Duration.between(d.episodeStart, now).toSeconds()));
    }
  }

  private Destination destination(String destination) {
    Destination d = destinations.get(destination);
    if (d != null) {
      return d;
    }
    if (destinations.size() >= MAX_DESTINATIONS) {
      Instant idleSince = clock.instant().minus(FORGET_AFTER);
      destinations.values().removeIf(e -> e.idleSince(idleSince));
    }
    return destinations.computeIfAbsent(destination, k -> new Destination(cap, clock.instant()));
  }

  private static double round(double rate) {
    return rate == UNLIMITED ? -1 : Math.round(rate * 10) / 10.0;
  }

  /** One destination's state; guarded by itself. */
  private static final class Destination {
    /** Messages per second; {@link #UNLIMITED} when not paced. */
    double rate;

    /** When the next call may start. */
    Instant next;

    Instant lastUsed;
    Instant lastAnswer;
    Instant loweredAt;

    /** The rate at which the destination began to throttle, in this episode. */
    double throttledAt;

    Instant episodeStart;
    double lowest;

    /** Messages started in the current whole second ({@link #second}) and in the one before. */
    long second = Long.MIN_VALUE;

    int inSecond;
    int inSecondBefore;

    Destination(double rate, Instant now) {
      this.rate = rate;
      this.next = now;
      this.lastUsed = now;
    }

    void count(Instant now, int messages) {
      roll(now);
      inSecond += messages;
    }

    /**
     * Messages started over the last second: the current second and its share of the one before.
     */
    double measured(Instant now) {
      roll(now);
      double intoSecond = (now.toEpochMilli() % 1000) / 1000.0;
      return inSecond + inSecondBefore * (1 - intoSecond);
    }

    private void roll(Instant now) {
      long s = Math.floorDiv(now.toEpochMilli(), 1000);
      if (s == second) {
        return;
      }
      inSecondBefore = s == second + 1 ? inSecond : 0;
      inSecond = 0;
      second = s;
    }

    boolean idleSince(Instant cutoff) {
      synchronized (this) {
        return lastUsed.isBefore(cutoff);
      }
    }
  }
}
