package dev.lambdaoutbox.poller.internal.log;

import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Logs what really happened to each row, as the store reports it: ERROR exactly once for a row that
 * was dead-lettered, INFO for a retry, WARN for an outcome not applied because another poller had
 * taken the row over (naming who holds it now), DEBUG for the rest; and ERROR for each older dead
 * letter a new one replaced (its event id reused).
 */
public final class CompletionLog {
  /** What a dead letter's log line says when it parked its aggregate. */
  static final String PARKED =
      "its aggregate is parked: later events wait until this dead letter is replayed or discarded";

  private final JsonLogger log;
  private final DeadLetterReports deadLetterReports;

  public CompletionLog(JsonLogger log, DeadLetterReports deadLetterReports) {
    this.log = log.forClass(CompletionLog.class);
    this.deadLetterReports = Objects.requireNonNull(deadLetterReports, "deadLetterReports");
  }

  /**
   * @param rows the claimed rows by id
   * @param destinations where each row was routed, by id (absent: it had no usable destination)
   */
  public void log(
      Map<UUID, OutboxMessage> rows, Map<UUID, String> destinations, CompletionReport report) {
    for (Completion c : report.completions()) {
      OutboxMessage row = rows.get(c.outcome().id());
      String eventId = row.id().toString();
      switch (c.result()) {
        case DEAD_LETTERED -> {
          DeliveryOutcome.DeadLetter dead = (DeliveryOutcome.DeadLetter) c.outcome();
          Map<String, Object> fields =
              LogFields.of(
                  "eventId", eventId,
                  "eventType", row.eventType(),
                  "destination", String.valueOf(destinations.get(row.id())),
                  "attempts", row.retryCount() + 1,
                  "errorCode", dead.errorCode(),
                  "reason", dead.reason());
          Integer parked = report.parked().get(row.id());
          if (parked != null) {
            fields.put("aggregateType", row.aggregateType());
            fields.put("aggregateId", row.aggregateId());
            fields.put("parkedEvents", parked);
            fields.put("parked", PARKED);
          }
          log.error("event dead-lettered", fields, null);
        }
        case RETRIED -> {
          DeliveryOutcome.Retry retry = (DeliveryOutcome.Retry) c.outcome();
          log.info(
              "publish failed; will retry",
              LogFields.of(
                  "eventId", eventId,
                  "retry", row.retryCount() + 1,
                  "errorCode", retry.errorCode(),
                  "reason", retry.reason(),
                  "nextAttemptAt", retry.nextAttemptAt().toString()));
        }
        case LEASE_LOST ->
            log.warn(
                "outcome not applied: another poller had taken the row over after this one's"
                    + " lease ran out",
                LogFields.of(
                    "eventId",
                    eventId,
                    "notApplied",
                    describe(c.outcome()),
                    "heldBy",
                    c.gone() ? "nobody: the row is gone" : holder(c.heldBy())));
        case PUBLISHED, DEFERRED -> {
          if (log.enabled(JsonLogger.Level.DEBUG)) {
            log.debug(
                c.result() == Completion.Result.PUBLISHED ? "event published" : "event deferred",
                LogFields.of("eventId", eventId, "outcome", describe(c.outcome())));
          }
        }
      }
    }
    deadLetterReports.superseded(report.superseded());
  }

  private static String holder(String heldBy) {
    return heldBy == null ? "nobody: the row waits to be claimed again" : heldBy;
  }

  private static String describe(DeliveryOutcome outcome) {
    return switch (outcome) {
      case DeliveryOutcome.Published p -> "published";
      case DeliveryOutcome.Retry r -> "retry (" + r.errorCode() + ")";
      case DeliveryOutcome.DeadLetter d -> "dead letter (" + d.errorCode() + ")";
      case DeliveryOutcome.Defer d -> "deferred until " + d.until() + " (" + d.errorCode() + ")";
      case DeliveryOutcome.Release r -> "released (time ran short)";
    };
  }
}
