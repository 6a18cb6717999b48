package dev.lambdaoutbox.reprocessor.internal.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;

/**
 * The answer to {@code replay} and {@code discard}: what was done (or in a dry run would be), what
 * was skipped and why, the parked aggregates released, and a sentence saying so and what to send
 * next.
 */
public final class ActionReport {
  private ActionReport() {}

  /**
   * @param verb "replay" or "discard"
   * @param filter the selection of a replay by filter; null for one by ids
   */
  public static ObjectNode of(
      String verb,
      String requestId,
      String requestedBy,
      DeadLetterFilter filter,
      String destination,
      DeadLetterActionResult result) {
    String done = verb.equals("replay") ? "replayed" : "discarded";
    String key = result.dryRun() ? "would" + ReportJson.capitalize(verb) : done;
    ObjectNode report = ReportJson.header(verb, requestId);
    report.put("requestedBy", requestedBy);
    report.put("dryRun", result.dryRun());
    if (filter != null) {
      report.set("filter", ReportJson.filter(filter));
      report.put("moreMatching", result.moreMatching());
    }
    if (destination != null) {
      report.put("destinationOverride", destination);
    }
    ArrayNode applied = report.putArray(key);
    result.applied().forEach(id -> applied.add(id.toString()));
    ArrayNode skipped = report.putArray("skipped");
    for (DeadLetterActionResult.Skipped s : result.skipped()) {
      skipped
          .addObject()
          .put("id", s.id().toString())
          .put("reason", s.reason().name())
          .put("detail", s.reason().description());
    }
    ArrayNode released = report.putArray(result.dryRun() ? "wouldRelease" : "released");
    result.released().forEach(k -> released.add(ReportJson.parkedKey(k)));
    report
        .putObject("counts")
        .put(key, result.applied().size())
        .put("skipped", skipped.size())
        .put(result.dryRun() ? "wouldReleaseEvents" : "releasedEvents", releasedEvents(result));
    report.put("batches", result.batches());
    report.put("message", message(verb, done, filter != null, result));
    return report;
  }

  private static long releasedEvents(DeadLetterActionResult result) {
    return result.released().stream().mapToLong(ParkedKey::waitingEvents).sum();
  }

  private static String message(
      String verb, String done, boolean byFilter, DeadLetterActionResult result) {
    String release =
        result.released().isEmpty()
            ? ""
            : (result.dryRun() ? " It would release " : " Released ")
                + result.released().size()
                + " parked aggregate(s), "
                + releasedEvents(result)
                + " waiting event(s)"
                + (verb.equals("replay")
                    ? ", each replayed event back at the head of its aggregate."
                    : ", due now in their order.");
    return messageWithoutRelease(verb, done, byFilter, result) + release;
  }

  private static String messageWithoutRelease(
      String verb, String done, boolean byFilter, DeadLetterActionResult result) {
    int applied = result.applied().size();
    int skipped = result.skipped().size();
    String more =
        result.moreMatching()
            ? " More dead letters match the filter than the limit allowed; send again for the next"
                + " ones."
            : "";
    if (result.dryRun()) {
      return "Dry run: nothing was changed. "
          + applied
          + " dead letter(s) would be "
          + done
          + ", "
          + skipped
          + " skipped. To "
          + verb
          + ", send the same request with \"dryRun\": false"
          + (byFilter ? " (it selects afresh), or list these ids." : ".")
          + more;
    }
    return applied
        + " dead letter(s) "
        + done
        + ", "
        + skipped
        + " skipped, in "
        + result.batches()
        + " committed batch(es)."
        + more;
  }
}
