package dev.lambdaoutbox.reprocessor.internal.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.model.deadletter.ParkedKey;
import java.time.Instant;

/**
 * What the reports share: the header every report starts with, a dead letter, a parked aggregate
 * and a filter as JSON, and times as ISO-8601 UTC strings.
 */
final class ReportJson {
  private ReportJson() {}

  static ObjectNode header(String action, String requestId) {
    ObjectNode report = JsonSupport.mapper().createObjectNode();
    report.put("action", action);
    report.put("requestId", requestId);
    return report;
  }

  static ObjectNode deadLetter(DeadLetterPage.Entry entry) {
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

  static ObjectNode filter(DeadLetterFilter f) {
    ObjectNode node = JsonSupport.mapper().createObjectNode();
    putIfSet(node, "eventType", f.eventType());
    putIfSet(node, "aggregateType", f.aggregateType());
    putIfSet(node, "aggregateId", f.aggregateId());
    putIfSet(node, "errorCode", f.errorCode());
    putIfSet(node, "deadAtFrom", time(f.deadFrom()));
    putIfSet(node, "deadAtTo", time(f.deadTo()));
    return node;
  }

  static ObjectNode auditFilter(AuditFilter f) {
    ObjectNode node = JsonSupport.mapper().createObjectNode();
    putIfSet(node, "deadLetterId", f.deadLetterId() == null ? null : f.deadLetterId().toString());
    putIfSet(node, "requestedBy", f.requestedBy());
    putIfSet(node, "requestId", f.requestId());
    putIfSet(node, "action", f.action());
    putIfSet(node, "from", time(f.from()));
    putIfSet(node, "to", time(f.to()));
    return node;
  }

  /** A parked aggregate: which, behind which dead letter, since when, and what waits. */
  static ObjectNode parkedKey(ParkedKey k) {
    return JsonSupport.mapper()
        .createObjectNode()
        .put("aggregateType", k.aggregateType())
        .put("aggregateId", k.aggregateId())
        .put("deadLetterId", k.deadLetterId().toString())
        .put("parkedAt", time(k.parkedAt()))
        .put("parkedEventsAtPark", k.parkedEvents())
        .put("waitingEvents", k.waitingEvents());
  }

  private static void putIfSet(ObjectNode node, String name, String value) {
    if (value != null) {
      node.put(name, value);
    }
  }

  static String time(Instant t) {
    return t == null ? null : t.toString();
  }

  static String capitalize(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
