package dev.lambdaoutbox.store.deadletter.internal;

import dev.lambdaoutbox.store.deadletter.AuditEntry;
import dev.lambdaoutbox.store.deadletter.AuditInfo;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Writes and reads the dead-letter audit table. */
public final class AuditRows {
  private final OutboxTables tables;
  private final SqlDialect dialect;

  public AuditRows(OutboxTables tables, SqlDialect dialect) {
    this.tables = tables;
    this.dialect = dialect;
  }

  /**
   * One audit row per dead letter, on the caller's transaction, each with a snapshot of the row.
   */
  public void record(
      Connection c,
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      Instant now)
      throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    String sql =
        "INSERT INTO "
            + tables.deadLetterAudit()
            + " (action, dead_letter_id, request_id, requested_by, reason, details, created_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (DeadLetter row : rows) {
        ps.setString(1, action);
        JdbcValues.setUuid(ps, 2, row.id(), dialect);
        ps.setString(3, audit.requestId());
        ps.setString(4, audit.requestedBy());
        ps.setString(5, audit.reason());
        ps.setString(6, AuditDetails.write(row, destinationOverride));
        JdbcValues.setInstant(ps, 7, now, dialect);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  public List<AuditEntry> trail(Connection c, UUID deadLetterId) throws SQLException {
    String sql =
        "SELECT audit_id, action, dead_letter_id, request_id, requested_by, reason, details,"
            + " created_at FROM "
            + tables.deadLetterAudit()
            + " WHERE dead_letter_id = ? ORDER BY audit_id";
    List<AuditEntry> entries = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setUuid(ps, 1, deadLetterId, dialect);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String details = rs.getString("details");
          entries.add(
              new AuditEntry(
                  rs.getLong("audit_id"),
                  rs.getString("action"),
                  JdbcValues.getUuid(rs, "dead_letter_id", dialect),
                  rs.getString("request_id"),
                  rs.getString("requested_by"),
                  rs.getString("reason"),
                  JdbcValues.getInstant(rs, "created_at", dialect),
                  details,
                  AuditDetails.snapshot(details),
                  AuditDetails.destinationOverride(details)));
        }
      }
    }
    return entries;
  }
}
