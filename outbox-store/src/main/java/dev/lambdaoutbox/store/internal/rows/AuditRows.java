package dev.lambdaoutbox.store.internal.rows;

import dev.lambdaoutbox.store.model.audit.AuditDetails;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.waiting.WaitingRow;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The audit table's rows: the parameters of one written, and one read back. */
public final class AuditRows {
  /** The JSON column: the dead letter as it was, the destination override. */
  public static final String DETAILS = "details";

  /** The columns of an audit INSERT, each filled from the parameter of the same name. */
  public static final List<String> INSERTED =
      List.of(
          "action",
          "dead_letter_id",
          "request_id",
          "requested_by",
          "reason",
          "details",
          "created_at",
          "claimed_by",
          "invoked_by");

  /** The columns {@link #read} needs. */
  public static final List<String> COLUMNS =
      List.of(
          "audit_id",
          "action",
          "dead_letter_id",
          "request_id",
          "requested_by",
          "reason",
          "details",
          "created_at",
          "claimed_by",
          "invoked_by");

  private AuditRows() {}

  /** One parameter set per row for the INSERT, each with a snapshot of the dead letter. */
  public static List<Params> parameters(
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      Instant now) {
    List<Params> sets = new ArrayList<>(rows.size());
    for (DeadLetter row : rows) {
      sets.add(
          entry(action, row.id(), audit, now)
              .json(DETAILS, AuditDetails.write(row, destinationOverride)));
    }
    return sets;
  }

  /**
   * One parameter set per retargeted row, each with the destination it waited for, the one it goes
   * to, and the row as it was.
   */
  public static List<Params> retargetParameters(
      List<WaitingRow> rows, String from, String to, AuditInfo audit, Instant now) {
    List<Params> sets = new ArrayList<>(rows.size());
    for (WaitingRow row : rows) {
      sets.add(
          entry(AuditEntry.RETARGET, row.id(), audit, now)
              .json(DETAILS, AuditDetails.writeRetarget(row, from, to)));
    }
    return sets;
  }

  /** The parameters of a rewind step's audit row: the rewind's id, and what the step did. */
  public static Params rewindParameters(
      UUID rewindId, String details, AuditInfo audit, Instant now) {
    return entry(AuditEntry.REWIND, rewindId, audit, now).json(DETAILS, details);
  }

  /**
   * One parameter set per row a re-drive held or resumed ({@link AuditEntry#REDRIVE_HOLD}, {@link
   * AuditEntry#REDRIVE_RESUME}): the group, and the row's due time ({@code due(i)}; null when
   * held).
   */
  public static List<Params> redriveParameters(
      String action,
      List<UUID> ids,
      String group,
      java.util.function.IntFunction<Instant> due,
      AuditInfo audit,
      Instant now) {
    List<Params> sets = new ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      sets.add(
          entry(action, ids.get(i), audit, now)
              .json(DETAILS, AuditDetails.writeRedrive(group, due.apply(i))));
    }
    return sets;
  }

  /** Every column of an audit INSERT but {@link #DETAILS}: what was done, by whom, when. */
  private static Params entry(String action, UUID id, AuditInfo audit, Instant now) {
    return Params.of()
        .text("action", action)
        .uuid("dead_letter_id", id)
        .text("request_id", audit.requestId())
        .text("requested_by", audit.requestedBy())
        .text("reason", audit.reason())
        .timestamp("created_at", now)
        .text("claimed_by", audit.claimedBy())
        .text("invoked_by", audit.invokedBy());
  }

  /** An entry of the audit listing: details cut by the dialect, with {@code payload_length}. */
  public static AuditPage.Entry readPreview(Row row) {
    String length = row.text("payload_length");
    return new AuditPage.Entry(read(row), length == null ? 0 : Integer.parseInt(length.strip()));
  }

  public static AuditEntry read(Row row) {
    String details = row.text(DETAILS);
    return new AuditEntry(
        row.longValue("audit_id"),
        row.text("action"),
        row.uuid("dead_letter_id"),
        row.text("request_id"),
        row.text("requested_by"),
        row.text("reason"),
        row.instant("created_at"),
        details,
        AuditDetails.snapshot(details),
        AuditDetails.destinationOverride(details),
        row.text("claimed_by"),
        row.text("invoked_by"));
  }
}
