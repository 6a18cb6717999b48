package dev.lambdaoutbox.reprocessor.internal.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.store.model.DestinationHealth;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import dev.lambdaoutbox.store.model.deadletter.ParkedKeys;
import dev.lambdaoutbox.store.model.waiting.WaitingDestination;
import dev.lambdaoutbox.store.model.waiting.WaitingForTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The answer to {@code list}: a page of dead letters, the summary of all that match (by error code
 * and event type), the aggregates parked behind dead letters, the rows waiting in the outbox for a
 * destination that is down, and those waiting for their time. Times are ISO-8601 UTC strings.
 */
public final class ListReport {
  private ListReport() {}

  public static ObjectNode of(
      String requestId,
      DeadLetterFilter filter,
      DeadLetterPage page,
      DeadLetterSummary summary,
      ParkedKeys parked,
      List<WaitingDestination> waiting,
      WaitingForTime waitingForTime,
      Instant now) {
    ObjectNode report = ReportJson.header("list", requestId);
    report.set("filter", ReportJson.filter(filter));
    ArrayNode rows = report.putArray("deadLetters");
    for (DeadLetterPage.Entry entry : page.entries()) {
      rows.add(ReportJson.deadLetter(entry));
    }
    report.put("count", page.entries().size());
    report.put("nextCursor", page.next() == null ? null : page.next().encode());
    ObjectNode s = report.putObject("summary");
    s.put("total", summary.total());
    s.put("totalCapped", summary.totalCapped());
    ArrayNode groups = s.putArray("byErrorCodeAndEventType");
    for (DeadLetterSummary.Group g : summary.groups()) {
      groups
          .addObject()
          .put("errorCode", g.errorCode())
          .put("eventType", g.eventType())
          .put("count", g.count())
          .put("oldestDeadAt", ReportJson.time(g.oldestDeadAt()))
          .put("newestDeadAt", ReportJson.time(g.newestDeadAt()));
    }
    ObjectNode p = report.putObject("parkedKeys");
    p.put("total", parked.total());
    p.put("totalCapped", parked.totalCapped());
    p.put("parkedEvents", parked.keys().stream().mapToLong(ParkedKey::waitingEvents).sum());
    ArrayNode keys = p.putArray("keys");
    parked.keys().forEach(k -> keys.add(ReportJson.parkedKey(k)));
    if (parked.total() > parked.keys().size()) {
      p.put("shown", parked.keys().size());
    }
    report.set("waiting", waiting(waiting, now));
    report.set("waitingForTime", waitingForTime(waitingForTime));
    return report;
  }

  /**
   * The rows waiting for their time (written with a delay, or put back to go later), which are not
   * late: how many, and the first to come due, with when.
   */
  private static ObjectNode waitingForTime(WaitingForTime waiting) {
    ObjectNode w = JsonSupport.mapper().createObjectNode();
    w.put("rows", waiting.rows());
    w.put("rowsCapped", waiting.rowsCapped());
    ArrayNode next = w.putArray("next");
    for (WaitingForTime.Due due : waiting.next()) {
      next.addObject()
          .put("id", due.id().toString())
          .put("eventType", due.eventType())
          .put("aggregateType", due.aggregateType())
          .put("aggregateId", due.aggregateId())
          .put("notBefore", ReportJson.time(due.notBefore()));
    }
    return w;
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
          .put("downSince", ReportJson.time(h.downSince()))
          .put("failedProbes", h.failedProbes())
          .put("nextProbeAt", ReportJson.time(h.nextProbeAt()))
          .put("rows", d.rows())
          .put("rowsCapped", d.rowsCapped())
          .put("oldestCreatedAt", ReportJson.time(d.oldestCreatedAt()))
          .put(
              "oldestAgeSeconds",
              Math.max(0, Duration.between(d.oldestCreatedAt(), now).toSeconds()));
    }
    return w;
  }
}
