package dev.lambdaoutbox.reprocessor.internal.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.store.model.audit.AuditDetails;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;

/**
 * The answer to {@code audit}: who did what to which dead letter, when and why, newest first, each
 * entry with the dead letter as it was. Times are ISO-8601 UTC strings.
 */
public final class AuditReport {
  private AuditReport() {}

  /** The audit listing: who did what to which dead letter, when and why, newest first. */
  public static ObjectNode of(String requestId, AuditFilter filter, AuditPage page) {
    ObjectNode report = ReportJson.header("audit", requestId);
    report.set("filter", ReportJson.auditFilter(filter));
    ArrayNode entries = report.putArray("entries");
    for (AuditPage.Entry listed : page.entries()) {
      AuditEntry e = listed.entry();
      ObjectNode entry = entries.addObject();
      entry.put("auditId", e.auditId());
      entry.put("at", ReportJson.time(e.createdAt()));
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
            ReportJson.deadLetter(new DeadLetterPage.Entry(e.snapshot(), listed.payloadLength())));
      }
    }
    report.put("count", page.entries().size());
    report.put("nextCursor", page.next() == null ? null : page.next().encode());
    return report;
  }
}
