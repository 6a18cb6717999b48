package dev.lambdaoutbox.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The event of a wake-up: what the writer library's {@code PollerWaker} sends the poller function
 * after an application's commit, and how the poller tells it from a scheduled event or a fan-out
 * invocation. The one place both sides agree on it.
 */
public final class PollerWakeUp {
  /** The field that marks an invocation's event as a wake-up. */
  public static final String MARKER = "outboxWakeUp";

  /**
   * The field of a wake-up that says how long its waker sends no other ({@code PollerWaker}'s quiet
   * period), in milliseconds: the woken run claims until at least that long after its start, and a
   * little more, so the commits the waker leaves without a wake-up meanwhile are published by it.
   */
  public static final String QUIET_FIELD = "quietMs";

  /** The event of a wake-up whose waker has no quiet period: {@code {"outboxWakeUp":true}}. */
  public static final String EVENT = "{\"" + MARKER + "\":true}";

  private static final Pattern QUIET =
      Pattern.compile("\"" + QUIET_FIELD + "\"\\s*:\\s*(\\d{1,9})(?![\\d.eE])");

  private PollerWakeUp() {}

  /**
   * The event of a wake-up whose waker sends no other for {@code quiet}: {@code
   * {"outboxWakeUp":true,"quietMs":5000}}, or {@link #EVENT} when {@code quiet} is zero.
   */
  public static String event(Duration quiet) {
    if (quiet.isZero()) {
      return EVENT;
    }
    if (quiet.isNegative()) {
      throw new IllegalArgumentException("quiet: must not be negative, was " + quiet);
    }
    return "{\"" + MARKER + "\":true,\"" + QUIET_FIELD + "\":" + quiet.toMillis() + "}";
  }

  /**
   * The quiet period a wake-up's event announces ({@link #QUIET_FIELD}); zero when it announces
   * none, or a value that is not a whole number of milliseconds.
   */
  public static Duration quiet(byte[] event) {
    Matcher m = QUIET.matcher(new String(event, StandardCharsets.UTF_8));
    return m.find() ? Duration.ofMillis(Long.parseLong(m.group(1))) : Duration.ZERO;
  }

  /**
   * Whether an invocation's event is a wake-up. (A plain look for the marker, as for the fan-out's:
   * a scheduled event never holds it, and it spares a cold start a JSON parser.)
   */
  public static boolean isWakeUp(byte[] event) {
    return new String(event, StandardCharsets.UTF_8).contains("\"" + MARKER + "\"");
  }
}
