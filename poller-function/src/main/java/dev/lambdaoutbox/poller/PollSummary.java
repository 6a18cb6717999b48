package dev.lambdaoutbox.poller;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one invocation did; the handler returns it as JSON.
 *
 * @param claimed rows claimed
 * @param published rows the broker accepted and the store recorded as published
 * @param retried rows that failed transiently and are due again after a backoff
 * @param deadLettered rows moved to the dead-letter table
 * @param notAttempted rows claimed but not sent (the broker was down or time ran short); they are
 *     claimed again once their lease runs out, their retry count untouched
 * @param leaseLost outcomes the store did not apply because another poller had taken the row over
 * @param rounds claims made
 * @param stoppedBecause {@code drained} (a claim came back short), {@code time} (the remaining time
 *     ran low), {@code broker-unreachable} (the circuit breaker opened) or {@code interrupted}
 * @param durationMs wall-clock time of the invocation
 */
public record PollSummary(
    int claimed,
    int published,
    int retried,
    int deadLettered,
    int notAttempted,
    int leaseLost,
    int rounds,
    String stoppedBecause,
    long durationMs) {

  /** Rows claimed but not published in this invocation. */
  public int failed() {
    return claimed - published;
  }

  /** The summary as a JSON object's fields, in a stable order. */
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("claimed", claimed);
    json.put("published", published);
    json.put("retried", retried);
    json.put("deadLettered", deadLettered);
    json.put("notAttempted", notAttempted);
    json.put("failed", failed());
    json.put("leaseLost", leaseLost);
    json.put("rounds", rounds);
    json.put("stoppedBecause", stoppedBecause);
    json.put("durationMs", durationMs);
    return json;
  }
}
