package dev.lambdaoutbox.store.model.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.waiting.WaitingRow;
import java.time.Instant;
import java.util.UUID;

/**
 * The audit row's {@code details} JSON: {@code {"deadLetter": {...every column...},
 * "destinationOverride": "..."}}, or for a retarget the row it moved ({@link #writeRetarget}). The
 * payload and headers are kept as JSON strings holding the stored text exactly, so a discarded
 * event can be restored byte for byte.
 */
public final class AuditDetails {
  private AuditDetails() {}

  public static String write(DeadLetter row, String destinationOverride) {
    ObjectNode root = JsonSupport.mapper().createObjectNode();
    ObjectNode d = root.putObject("deadLetter");
    d.put("id", row.id().toString());
    d.put("aggregateType", row.aggregateType());
    d.put("aggregateId", row.aggregateId());
    d.put("eventType", row.eventType());
    d.put("payload", row.payload());
    d.put("headers", row.headers());
    d.put("destination", row.destination());
    d.put("idempotencyKey", row.idempotencyKey());
    d.put("occurredAt", row.occurredAt().toString());
    d.put("createdAt", row.createdAt().toString());
    d.put("attempts", row.attempts());
    d.put("replayCount", row.replayCount());
    d.put("errorCode", row.errorCode());
    d.put("errorReason", row.errorReason());
    d.put("firstFailedAt", row.firstFailedAt().toString());
    d.put("lastFailedAt", row.lastFailedAt().toString());
    d.put("deadAt", row.deadAt().toString());
    if (destinationOverride != null) {
      root.put("destinationOverride", destinationOverride);
    }
    return root.toString();
  }

  /**
   * The details of a retarget: {@code {"waitingFor": from, "destinationOverride": to, "row":
   * {...}}}, the row as it was without its payload and headers (they go on with the row).
   */
  /** The details of a re-drive's hold or resume: the failure group, the due time (or none). */
  public static String writeRedrive(String group, Instant due) {
    ObjectNode root = JsonSupport.mapper().createObjectNode();
    root.put("failureGroup", group);
    if (due != null) {
      root.put("due", due.toString());
    }
    return root.toString();
  }

  public static String writeRetarget(WaitingRow row, String from, String to) {
    ObjectNode root = JsonSupport.mapper().createObjectNode();
    root.put("waitingFor", from);
    root.put("destinationOverride", to);
    ObjectNode r = root.putObject("row");
    r.put("id", row.id().toString());
    r.put("aggregateType", row.aggregateType());
    r.put("aggregateId", row.aggregateId());
    r.put("eventType", row.eventType());
    r.put("destination", row.destination());
    r.put("createdAt", row.createdAt().toString());
    r.put("retryCount", row.retryCount());
    r.put("lastErrorCode", row.lastErrorCode());
    r.put("lastErrorReason", row.lastErrorReason());
    return root.toString();
  }

  /** The destination a retargeted row waited for, as {@code details} records it; null when none. */
  public static String waitingFor(String details) {
    return text(parse(details), "waitingFor");
  }

  /** The dead letter a {@code details} text holds; null when it holds none. */
  public static DeadLetter snapshot(String details) {
    JsonNode d = parse(details).path("deadLetter");
    if (!d.isObject()) {
      return null;
    }
    return new DeadLetter(
        UUID.fromString(d.get("id").asText()),
        d.get("aggregateType").asText(),
        d.get("aggregateId").asText(),
        d.get("eventType").asText(),
        d.get("payload").asText(),
        text(d, "headers"),
        text(d, "destination"),
        text(d, "idempotencyKey"),
        Instant.parse(d.get("occurredAt").asText()),
        Instant.parse(d.get("createdAt").asText()),
        d.get("attempts").asInt(),
        d.get("replayCount").asInt(),
        d.get("errorCode").asText(),
        text(d, "errorReason"),
        Instant.parse(d.get("firstFailedAt").asText()),
        Instant.parse(d.get("lastFailedAt").asText()),
        Instant.parse(d.get("deadAt").asText()));
  }

  /** The destination override a {@code details} text records; null when none. */
  public static String destinationOverride(String details) {
    return text(parse(details), "destinationOverride");
  }

  private static JsonNode parse(String details) {
    if (details == null) {
      return JsonSupport.mapper().missingNode();
    }
    try {
      return JsonSupport.mapper().readTree(details);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "audit details are not JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }
}
