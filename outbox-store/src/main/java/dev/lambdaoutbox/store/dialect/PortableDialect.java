package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.OutboxStore.Backlog;
import dev.lambdaoutbox.store.deadletter.AuditEntry;
import dev.lambdaoutbox.store.deadletter.AuditInfo;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.writer.OutboxTables;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The statements PostgreSQL and MySQL run alike, apart from how a time is written ({@link Syntax}):
 * the backlog, the reprocessor's reads of dead letters, and the audit rows. The two dialect homes
 * extend it and hold everything else.
 */
abstract class PortableDialect implements StoreDialect {
  private final OutboxTables tables;
  private final Syntax syntax;
  private final String backlogSql;
  private final String countDueSql;
  private final String deadLetterColumns;
  private final String auditSql;
  private final String auditTrailSql;

  PortableDialect(OutboxTables tables, Syntax syntax) {
    this.tables = tables;
    this.syntax = syntax;
    // The oldest due row's creation time among the first BACKLOG_SAMPLE due rows, along the due
    // index, and the dead letters counted exactly, in one round trip.
    this.backlogSql =
        "SELECT "
            + syntax
                .utcText()
                .apply(
                    "(SELECT MIN(created_at) FROM (SELECT created_at FROM "
                        + tables.messages()
                        + " WHERE status = 'PENDING' AND next_attempt_at <= "
                        + syntax.timestampParam().apply("now")
                        + " ORDER BY next_attempt_at, id LIMIT "
                        + StoreDialect.BACKLOG_SAMPLE
                        + ") due)")
            + " AS oldest_created_at, (SELECT COUNT(*) FROM "
            + tables.deadLetters()
            + ") AS dead_letters";
    this.countDueSql =
        "SELECT COUNT(*) AS due FROM (SELECT id FROM "
            + tables.messages()
            + " WHERE status = 'PENDING' AND next_attempt_at <= "
            + syntax.timestampParam().apply("now")
            + " ORDER BY next_attempt_at, id LIMIT :limit) due";
    this.deadLetterColumns = syntax.selectList("", DeadLetterRows.COLUMNS);
    List<String> values = new ArrayList<>();
    for (String column : AuditRows.INSERTED) {
      values.add(column.endsWith("_at") ? syntax.timestampParam().apply(column) : ":" + column);
    }
    this.auditSql =
        "INSERT INTO "
            + tables.deadLetterAudit()
            + " ("
            + String.join(", ", AuditRows.INSERTED)
            + ") VALUES ("
            + String.join(", ", values)
            + ")";
    this.auditTrailSql =
        "SELECT "
            + syntax.selectList("", AuditRows.COLUMNS)
            + " FROM "
            + tables.deadLetterAudit()
            + " WHERE dead_letter_id = :id ORDER BY audit_id";
  }

  @Override
  public final OutboxTables tables() {
    return tables;
  }

  /** Every dead-letter column, times as UTC text. */
  final String deadLetterColumns() {
    return deadLetterColumns;
  }

  /** A WHERE clause builder writing times in this dialect. */
  final Conditions conditions(Params params) {
    return syntax.conditions(params);
  }

  @Override
  public Backlog backlog(SqlSession s, Instant now) {
    return Results.backlog(s.query(backlogSql, Params.of().timestamp("now", now)).get(0), now);
  }

  @Override
  public int countDue(SqlSession s, Instant now, int limit) {
    Params params = Params.of().timestamp("now", now).integer("limit", limit);
    return (int) s.query(countDueSql, params).get(0).longValue("due");
  }

  @Override
  public List<DeadLetterPage.Entry> listDeadLetters(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, int previewChars) {
    Params params = Params.of().integer("preview", previewChars).integer("limit", limit);
    String where = syntax.conditions(params).matching(filter).after(after).where();
    String sql =
        "SELECT "
            + DeadLetterRows.previewList(deadLetterColumns)
            + " FROM "
            + tables.deadLetters()
            + where
            + " ORDER BY dead_at, id LIMIT :limit";
    return s.query(sql, params).stream().map(DeadLetterRows::readPreview).toList();
  }

  @Override
  public DeadLetterSummary summarizeDeadLetters(SqlSession s, DeadLetterFilter filter) {
    Params params = Params.of();
    String where = syntax.conditions(params).matching(filter).where();
    String sql =
        "SELECT error_code, event_type, count(*) AS row_count, "
            + syntax.utcText().apply("min(dead_at)")
            + " AS oldest_dead_at, "
            + syntax.utcText().apply("max(dead_at)")
            + " AS newest_dead_at FROM "
            + tables.deadLetters()
            + where
            + " GROUP BY error_code, event_type ORDER BY row_count DESC, error_code, event_type";
    return Results.summary(s.query(sql, params));
  }

  @Override
  public long countDeadLetters(SqlSession s) {
    return s.query("SELECT count(*) AS row_count FROM " + tables.deadLetters(), Params.none())
        .get(0)
        .longValue("row_count");
  }

  @Override
  public List<DeadLetter> deadLettersMatching(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, boolean lock) {
    Params params = Params.of().integer("limit", limit);
    String where = syntax.conditions(params).matching(filter).after(after).where();
    String sql =
        "SELECT "
            + deadLetterColumns
            + " FROM "
            + tables.deadLetters()
            + where
            + " ORDER BY dead_at, id LIMIT :limit"
            + (lock ? " FOR UPDATE" : "");
    return DeadLetterRows.readAll(s.query(sql, params));
  }

  @Override
  public boolean anyDeadLetterMatching(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after) {
    Params params = Params.of();
    String where = syntax.conditions(params).matching(filter).after(after).where();
    return !s.query("SELECT 1 AS found FROM " + tables.deadLetters() + where + " LIMIT 1", params)
        .isEmpty();
  }

  @Override
  public void recordAudit(
      SqlSession s,
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      Instant now) {
    if (!rows.isEmpty()) {
      s.batch(auditSql, AuditRows.parameters(action, rows, destinationOverride, audit, now));
    }
  }

  @Override
  public List<AuditEntry> auditTrail(SqlSession s, UUID deadLetterId) {
    return s.query(auditTrailSql, Params.of().uuid("id", deadLetterId)).stream()
        .map(AuditRows::read)
        .toList();
  }
}
