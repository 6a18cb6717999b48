package dev.lambdaoutbox.poller;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one invocation did; the handler returns it as JSON. Each claimed row ends in exactly one of
 * published, retried, dead-lettered, deferred, released, held back or lease lost.
 *
 * @param claimed rows claimed
 * @param published rows the broker accepted and the store recorded as published
 * @param retried rows whose message failed transiently: one retry spent, due again after a backoff
 * @param deadLettered rows moved to the dead-letter table
 * @param deferred rows whose destination is down (unreachable, failing, or misconfigured): they
 *     wait for its next probe, their retry count untouched
 * @param released rows claimed but not sent because time ran short: due again at once, their retry
 *     count untouched
 * @param heldBack rows of a FIFO group held back behind a message of the group that failed: they
 *     keep their lease and are claimed again once it runs out
 * @param leaseLost outcomes the store did not apply because another poller had taken the row over
 *     (or the row was gone)
 * @param rounds claims made
 * @param stoppedBecause {@code drained} (a claim came back short), {@code time} (the remaining time
 *     ran low), {@code lingered} (a woken run found no row for {@code OUTBOX_WAKE_LINGER_MS}),
 *     {@code anotherLingers} (a woken run drained the due rows, and another woken run lingers for
 *     what follows) or {@code interrupted}
 * @param durationMs wall-clock time of the invocation
 */
public record PollSummary(
    int claimed,
    int published,
    int retried,
    int deadLettered,
    int deferred,
    int released,
    int heldBack,
    int leaseLost,
    int rounds,
    String stoppedBecause,
    long durationMs) {

  /** The summary as a JSON object's fields, in a stable order. */
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("claimed", claimed);
    json.put("published", published);
    json.put("retried", retried);
    json.put("deadLettered", deadLettered);
    json.put("deferred", deferred);
    json.put("released", released);
    json.put("heldBack", heldBack);
    json.put("leaseLost", leaseLost);
    json.put("rounds", rounds);
    json.put("stoppedBecause", stoppedBecause);
    json.put("durationMs", durationMs);
    return json;
  }
}
