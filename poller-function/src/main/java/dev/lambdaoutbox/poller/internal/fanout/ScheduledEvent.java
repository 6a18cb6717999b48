package dev.lambdaoutbox.poller.internal.fanout;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The event an EventBridge schedule sends ({@code "source": "aws.events"}, {@code "detail-type":
 * "Scheduled Event"}): the only one that may start further invocations ({@link FanOut}). Anything
 * else that reaches the poller (an operator's {@code {}}, a wake-up without its mark) is drained
 * once, so no caller but the schedule can multiply the runs.
 */
public final class ScheduledEvent {
  private static final Pattern SOURCE = Pattern.compile("\"source\"\\s*:\\s*\"aws\\.events\"");
  private static final Pattern DETAIL_TYPE =
      Pattern.compile("\"detail-type\"\\s*:\\s*\"Scheduled Event\"");

  private ScheduledEvent() {}

  /**
   * Whether {@code event} is a schedule's. (A plain look for its two fields, as for the other
   * marks: it spares a cold start a JSON parser.)
   */
  public static boolean isScheduled(byte[] event) {
    String text = new String(event, StandardCharsets.UTF_8);
    return SOURCE.matcher(text).find() && DETAIL_TYPE.matcher(text).find();
  }
}
