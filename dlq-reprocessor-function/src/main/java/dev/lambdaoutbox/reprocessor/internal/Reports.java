package dev.lambdaoutbox.reprocessor.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.deadletter.AuditEntry;
import dev.lambdaoutbox.store.deadletter.AuditFilter;
import dev.lambdaoutbox.store.deadletter.AuditPage;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.DeadLetterActionResult;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.deadletter.ParkedKey;
import dev.lambdaoutbox.store.dialect.AuditDetails;
import dev.lambdaoutbox.store.waiting.WaitingActionResult;
import dev.lambdaoutbox.store.waiting.WaitingDestination;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The JSON reports the reprocessor answers with. Times are ISO-8601 UTC strings. */
public final class Reports {
  private Reports() {}

  public static ObjectNode list(
      String requestId,
      DeadLetterFilter filter,
      DeadLetterPage page,
      DeadLetterSummary summary,
      DeadLetterStore.ParkedKeys parked,
      List<WaitingDestination> waiting,
      Instant now) {
    ObjectNode report = header("list", requestId);
    report.set("filter", filter(filter));
    ArrayNode rows = report.putArray("deadLetters");
    for (DeadLetterPage.Entry entry : page.entries()) {
      rows.add(deadLetter(entry));
    }
    report.put("count", page.entries().size());
    report.put("nextCursor", page.next() == null ? null : page.next().encode());
    ObjectNode s = report.putObject("summary");
    s.put("total", summary.total());
    ArrayNode groups = s.putArray("byErrorCodeAndEventType");
    for (DeadLetterSummary.Group g : summary.groups()) {
      groups
          .addObject()
          .put("errorCode", g.errorCode())
          .put("eventType", g.eventType())
          .put("count", g.count())
          .put("oldestDeadAt", time(g.oldestDeadAt()))
          .put("newestDeadAt", time(g.newestDeadAt()));
    }
    ObjectNode p = report.putObject("parkedKeys");
    p.put("total", parked.total());
    p.put("parkedEvents", parked.keys().stream().mapToLong(ParkedKey::waitingEvents).sum());
    ArrayNode keys = p.putArray("keys");
    parked.keys().forEach(k -> keys.add(parkedKey(k)));
    if (parked.total() > parked.keys().size()) {
      p.put("shown", parked.keys().size());
    }
    report.set("waiting", waiting(waiting, now));
    return report;
  }

  /**
   * The rows waiting in the outbox for a destination that is down, by destination, longest waiting
   * first: what the destination health table says of it, how many rows wait and since when.
   */
  private static ObjectNode waiting(List<WaitingDestination> waiting, Instant now) {
    ObjectNode w = JsonSupport.mapper().createObjectNode();
    w.put("rows", waiting.stream().mapToLong(WaitingDestination::rows).sum());
    ArrayNode destinations = w.putArray("destinations");
    for (WaitingDestination d : waiting) {
      DestinationHealth h = d.health();
      destinations
          .addObject()
          .put("destination", h.destination())
          .put("state", h.state().name())
          .put("errorCode", h.errorCode())
          .put("reason", h.errorReason())
          .put("downSince", time(h.downSince()))
          .put("failedProbes", h.failedProbes())
          .put("nextProbeAt", time(h.nextProbeAt()))
          .put("rows", d.rows())
          .put("rowsCapped", d.rowsCapped())
          .put("oldestCreatedAt", time(d.oldestCreatedAt()))
          .put(
              "oldestAgeSeconds",
              Math.max(0, Duration.between(d.oldestCreatedAt(), now).toSeconds()));
    }
    return w;
  }

  /**
   * What a retarget or dead-lettering of waiting rows did (or in a dry run would do).
   *
   * @param verb "retarget" or "deadLetter"
   * @param destination where a retarget sends the rows; null for a dead-lettering
   */
  public static ObjectNode waitingAction(
      String verb,
      String requestId,
      String requestedBy,
      String waitingFor,
      String destination,
      WaitingActionResult result) {
    String done = verb.equals("retarget") ? "retargeted" : "deadLettered";
    String key = result.dryRun() ? "would" + capitalize(verb) : done;
    ObjectNode report = header(verb, requestId);
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

  /** A parked aggregate: which, behind which dead letter, since when, and what waits. */
  private static ObjectNode parkedKey(ParkedKey k) {
    return JsonSupport.mapper()
        .createObjectNode()
        .put("aggregateType", k.aggregateType())
        .put("aggregateId", k.aggregateId())
        .put("deadLetterId", k.deadLetterId().toString())
        .put("parkedAt", time(k.parkedAt()))
        .put("parkedEventsAtPark", k.parkedEvents())
        .put("waitingEvents", k.waitingEvents());
  }

  /** The audit listing: who did what to which dead letter, when and why, newest first. */
  public static ObjectNode audit(String requestId, AuditFilter filter, AuditPage page) {
    ObjectNode report = header("audit", requestId);
    report.set("filter", auditFilter(filter));
    ArrayNode entries = report.putArray("entries");
    for (AuditPage.Entry listed : page.entries()) {
      AuditEntry e = listed.entry();
      ObjectNode entry = entries.addObject();
      entry.put("auditId", e.auditId());
      entry.put("at", time(e.createdAt()));
      entry.put("action", e.action());
      entry.put("deadLetterId", e.deadLetterId().toString());
      entry.put("requestedBy", e.requestedBy());
      entry.put("claimedBy", e.claimedBy());
      entry.put("invokedBy", e.invokedBy());
      entry.put("requestId", e.requestId());
      entry.put("reason", e.reason());
      entry.put("destinationOverride", e.destinationOverride());
      String waitingFor = AuditDetails.waitingFor(e.details());
      if (waitingFor != null) {
        entry.put("waitingFor", waitingFor);
      }
      if (e.snapshot() == null) {
        entry.putNull("deadLetter");
      } else {
        entry.set(
            "deadLetter",
            deadLetter(new DeadLetterPage.Entry(e.snapshot(), listed.payloadLength())));
      }
    }
    report.put("count", page.entries().size());
    report.put("nextCursor", page.next() == null ? null : page.next().encode());
    return report;
  }

  /**
   * @param verb "replay" or "discard"
   * @param filter the selection of a replay by filter; null for one by ids
   */
  public static ObjectNode action(
      String verb,
      String requestId,
      String requestedBy,
      DeadLetterFilter filter,
      String destination,
      DeadLetterActionResult result) {
    String done = verb.equals("replay") ? "replayed" : "discarded";
    String key = result.dryRun() ? "would" + capitalize(verb) : done;
    ObjectNode report = header(verb, requestId);
    report.put("requestedBy", requestedBy);
    report.put("dryRun", result.dryRun());
    if (filter != null) {
      report.set("filter", filter(filter));
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
    result.released().forEach(k -> released.add(parkedKey(k)));
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

  private static ObjectNode header(String action, String requestId) {
    ObjectNode report = JsonSupport.mapper().createObjectNode();
    report.put("action", action);
    report.put("requestId", requestId);
    return report;
  }

  private static ObjectNode deadLetter(DeadLetterPage.Entry entry) {
    DeadLetter d = entry.deadLetter();
    ObjectNode row = JsonSupport.mapper().createObjectNode();
    row.put("id", d.id().toString());
    row.put("eventType", d.eventType());
    row.put("aggregateType", d.aggregateType());
    row.put("aggregateId", d.aggregateId());
    row.put("errorCode", d.errorCode());
    row.put("errorReason", d.errorReason());
    row.put("attempts", d.attempts());
    row.put("replayCount", d.replayCount());
    row.put("occurredAt", time(d.occurredAt()));
    row.put("createdAt", time(d.createdAt()));
    row.put("firstFailedAt", time(d.firstFailedAt()));
    row.put("lastFailedAt", time(d.lastFailedAt()));
    row.put("deadAt", time(d.deadAt()));
    row.put("destination", d.destination());
    row.put("idempotencyKey", d.idempotencyKey());
    row.put("headers", d.headers());
    row.put("payload", d.payload());
    row.put("payloadLength", entry.payloadLength());
    row.put("payloadTruncated", entry.payloadTruncated());
    return row;
  }

  private static ObjectNode filter(DeadLetterFilter f) {
    ObjectNode node = JsonSupport.mapper().createObjectNode();
    putIfSet(node, "eventType", f.eventType());
    putIfSet(node, "aggregateType", f.aggregateType());
    putIfSet(node, "aggregateId", f.aggregateId());
    putIfSet(node, "errorCode", f.errorCode());
    putIfSet(node, "deadAtFrom", time(f.deadFrom()));
    putIfSet(node, "deadAtTo", time(f.deadTo()));
    return node;
  }

  private static ObjectNode auditFilter(AuditFilter f) {
    ObjectNode node = JsonSupport.mapper().createObjectNode();
    putIfSet(node, "deadLetterId", f.deadLetterId() == null ? null : f.deadLetterId().toString());
    putIfSet(node, "requestedBy", f.requestedBy());
    putIfSet(node, "requestId", f.requestId());
    putIfSet(node, "action", f.action());
    putIfSet(node, "from", time(f.from()));
    putIfSet(node, "to", time(f.to()));
    return node;
  }

  private static void putIfSet(ObjectNode node, String name, String value) {
    if (value != null) {
      node.put(name, value);
    }
  }

  private static String time(Instant t) {
    return t == null ? null : t.toString();
  }

  private static String capitalize(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
