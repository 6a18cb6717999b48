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
 * @param deferred rows whose destination is down: they wait for its next probe, no retry spent
 * @param released rows not sent for lack of time: due again at once, no retry spent
 * @param heldBack rows held back behind a failed message of their FIFO group: leased until it ends
 * @param leaseLost outcomes not applied because another poller had taken the row (or it was gone)
 * @param rounds claims made
 * @param stoppedBecause {@code drained}, {@code time}, {@code sendRate}, {@code lingered}, {@code
 *     anotherLingers} or {@code interrupted}
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
