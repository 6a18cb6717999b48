package dev.lambdaoutbox.reprocessor.internal.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.store.model.waiting.WaitingActionResult;

/**
 * The answer to {@code retarget} and {@code deadLetter} of rows waiting for a destination that is
 * down: which rows were moved (or in a dry run would be), whether more wait, and a sentence saying
 * so and what to send next.
 */
public final class WaitingActionReport {
  private WaitingActionReport() {}

  /**
   * What a retarget or dead-lettering of waiting rows did (or in a dry run would do).
   *
   * @param verb "retarget" or "deadLetter"
   * @param destination where a retarget sends the rows; null for a dead-lettering
   */
  public static ObjectNode of(
      String verb,
      String requestId,
      String requestedBy,
      String waitingFor,
      String destination,
      WaitingActionResult result) {
    String done = verb.equals("retarget") ? "retargeted" : "deadLettered";
    String key = result.dryRun() ? "would" + ReportJson.capitalize(verb) : done;
    ObjectNode report = ReportJson.header(verb, requestId);
    report.put("requestedBy", requestedBy);
    report.put("dryRun", result.dryRun());
    report.put("waitingFor", waitingFor);
    if (destination != null) {
      report.put("destination", destination);
    }
    ArrayNode applied = report.putArray(key);
    result.applied().forEach(id -> applied.add(id.toString()));
    report.put("moreWaiting", result.moreWaiting());
    ObjectNode counts = report.putObject("counts").put(key, result.applied().size());
    if (!result.dryRun() && result.parkedEvents() > 0) {
      counts.put("parkedEvents", result.parkedEvents());
    }
    report.put("batches", result.batches());
    String what =
        destination == null ? "moved to the dead letters" : "sent to " + destination + " instead";
    String more =
        result.moreWaiting()
            ? " More rows still wait for " + waitingFor + "; send again for the next ones."
            : "";
    report.put(
        "message",
        result.dryRun()
            ? "Dry run: nothing was changed. "
                + result.applied().size()
                + " row(s) waiting for "
                + waitingFor
                + " would be "
                + what
                + ". To do it, send the same request with \"dryRun\": false."
                + more
            : result.applied().size()
                + " row(s) waiting for "
                + waitingFor
                + " "
                + what
                + ", in "
                + result.batches()
                + " committed batch(es)."
                + (result.parkedEvents() > 0
                    ? " "
                        + result.parkedEvents()
                        + " event(s) behind them now wait for them (parked aggregates)."
                    : "")
                + more);
    return report;
  }
}
