package dev.lambdaoutbox.core;

import java.nio.charset.StandardCharsets;

/**
 * The event of a wake-up: what the writer library's {@code PollerWaker} sends the poller function
 * after an application's commit, and how the poller tells it from a scheduled event or a fan-out
 * invocation. The one place both sides agree on it.
 */
public final class PollerWakeUp {
  /** The field that marks an invocation's event as a wake-up. */
  public static final String MARKER = "outboxWakeUp";

  /** The event a wake-up sends: {@code {"outboxWakeUp":true}}. */
  public static final String EVENT = "{\"" + MARKER + "\":true}";

  private PollerWakeUp() {}

  /**
   * Whether an invocation's event is a wake-up. (A plain look for the marker, as for the fan-out's:
   * a scheduled event never holds it, and it spares a cold start a JSON parser.)
   */
  public static boolean isWakeUp(byte[] event) {
    return new String(event, StandardCharsets.UTF_8).contains("\"" + MARKER + "\"");
  }
}
