package dev.lambdaoutbox.poller.internal.log;

import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.model.UnreadableRow;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * ERROR log lines for what the store dead-lettered on its own: rows a claim could not read (each
 * moved at once, one line each, as for any dead letter, saying when it parked its aggregate), and
 * older dead letters replaced by newer ones of the same event id.
 */
public final class DeadLetterReports {
  private final JsonLogger log;

  public DeadLetterReports(JsonLogger log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  /** Logs the claim's unreadable rows and what they superseded; returns how many were moved. */
  public int unreadable(Claim claim) {
    for (UnreadableRow row : claim.unreadable()) {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("eventId", row.deadLetterId().toString());
      if (!row.rawId().equals(row.deadLetterId().toString())) {
        fields.put("storedId", row.rawId());
      }
      fields.put("errorCode", UnreadableRow.ERROR_CODE);
      fields.put("column", row.column());
      fields.put("reason", row.reason());
      Integer parked = claim.parked().get(row.deadLetterId());
      if (parked != null) {
        fields.put("parkedEvents", parked);
        fields.put("parked", CompletionLog.PARKED);
      }
      log.error("event dead-lettered", fields, null);
    }
    superseded(claim.superseded());
    return claim.unreadable().size();
  }

  public void superseded(List<SupersededDeadLetter> superseded) {
    for (SupersededDeadLetter s : superseded) {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("eventId", s.id().toString());
      fields.put("previousDeadAt", s.previousDeadAt().toString());
      fields.put("deadAt", s.deadAt().toString());
      log.error(
          "dead letter superseded: its event id was reused; the older dead letter is kept whole in"
              + " the audit table (action SUPERSEDED)",
          fields,
          null);
    }
  }
}
