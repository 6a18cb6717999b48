package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.store.OutboxStore.Backlog;
import dev.lambdaoutbox.store.deadletter.AuditCursor;
import dev.lambdaoutbox.store.deadletter.AuditEntry;
import dev.lambdaoutbox.store.deadletter.AuditFilter;
import dev.lambdaoutbox.store.deadletter.AuditInfo;
import dev.lambdaoutbox.store.deadletter.AuditPage;
import dev.lambdaoutbox.store.deadletter.DeadLetter;
import dev.lambdaoutbox.store.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.store.deadletter.DeadLetterFilter;
import dev.lambdaoutbox.store.deadletter.DeadLetterPage;
import dev.lambdaoutbox.store.deadletter.DeadLetterSummary;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.writer.OutboxTables;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
      values.add(
          column.endsWith("_at")
              ? syntax.timestampParam().apply(column)
              : column.equals(AuditRows.DETAILS) ? syntax.jsonParam().apply(column) : ":" + column);
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

  /**
   * The page of up to {@code limit} rows after {@code after}. Under a result budget the rows' sizes
   * (previews included) are read first and the page ends early, with a cursor, where the next row
   * would not fit.
   */
  @Override
  public DeadLetterPage listDeadLetters(
      SqlSession s, DeadLetterFilter filter, DeadLetterCursor after, int limit, int previewChars) {
    int rows = limit + 1; // one more than the page, to know whether another page follows
    if (!ResultBudget.unbounded(s)) {
      Params params = Params.of().integer("preview", previewChars).integer("limit", rows);
      String sql =
          "SELECT id, "
              + ResultBudget.DEAD_LETTER_BYTES.replace(
                  "octet_length(payload)", "octet_length(substr(payload, 1, :preview))")
              + " AS bytes FROM "
              + tables.deadLetters()
              + syntax.conditions(params).matching(filter).after(after).where()
              + " ORDER BY dead_at, id LIMIT :limit";
      List<Row> sizes = s.query(sql, params);
      if (sizes.isEmpty()) {
        return new DeadLetterPage(List.of(), null);
      }
      int take = Math.min(limit, ResultBudget.fitting(sizes, s.maxResultBytes()));
      List<DeadLetterPage.Entry> page = previews(s, filter, after, take, previewChars);
      boolean more = sizes.size() > take && !page.isEmpty();
      return new DeadLetterPage(
          page, more ? page.get(page.size() - 1).deadLetter().position() : null);
    }
    List<DeadLetterPage.Entry> entries = previews(s, filter, after, rows, previewChars);
    if (entries.size() <= limit) {
      return new DeadLetterPage(entries, null);
    }
    List<DeadLetterPage.Entry> page = entries.subList(0, limit);
    return new DeadLetterPage(page, page.get(limit - 1).deadLetter().position());
  }

  private List<DeadLetterPage.Entry> previews(
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
    boolean sized = !ResultBudget.unbounded(s);
    Params params = Params.of().integer("limit", limit);
    String where = syntax.conditions(params).matching(filter).after(after).where();
    String sql =
        "SELECT "
            + (sized ? "id, " + ResultBudget.DEAD_LETTER_BYTES + " AS bytes" : deadLetterColumns)
            + " FROM "
            + tables.deadLetters()
            + where
            + " ORDER BY dead_at, id LIMIT :limit"
            + (lock ? " FOR UPDATE" : "");
    List<Row> rows = s.query(sql, params);
    if (!sized) {
      return DeadLetterRows.readAll(rows);
    }
    Map<UUID, DeadLetter> byId = new HashMap<>();
    for (List<UUID> group : ResultBudget.groups(rows, s.maxResultBytes())) {
      for (Row row : selectDeadLettersByIds(s, deadLetterColumns, group, false)) {
        DeadLetter d = DeadLetterRows.read(row);
        byId.put(d.id(), d);
      }
    }
    return rows.stream().map(r -> byId.get(r.uuid("id"))).toList();
  }

  /**
   * The dead letters with these ids, by id; locked with {@code lock}. Under a result budget their
   * sizes are read (and the rows locked) first, then the rows in groups that fit.
   */
  @Override
  public List<DeadLetter> deadLettersByIds(SqlSession s, Collection<UUID> ids, boolean lock) {
    if (ResultBudget.unbounded(s)) {
      return DeadLetterRows.readAll(selectDeadLettersByIds(s, deadLetterColumns, ids, lock));
    }
    List<Row> sizes =
        selectDeadLettersByIds(s, "id, " + ResultBudget.DEAD_LETTER_BYTES + " AS bytes", ids, lock);
    List<DeadLetter> rows = new ArrayList<>(sizes.size());
    for (List<UUID> group : ResultBudget.groups(sizes, s.maxResultBytes())) {
      rows.addAll(
          DeadLetterRows.readAll(selectDeadLettersByIds(s, deadLetterColumns, group, false)));
    }
    return rows;
  }

  /**
   * {@code SELECT selectList FROM} the dead letters with these ids {@code ORDER BY id}, locked
   * ({@code FOR UPDATE}) with {@code lock}: the one statement whose id list each dialect writes its
   * own way.
   */
  abstract List<Row> selectDeadLettersByIds(
      SqlSession s, String selectList, Collection<UUID> ids, boolean lock);

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

  // ---- the audit action's read

  @Override
  public List<AuditPage.Entry> auditEntries(
      SqlSession s, AuditFilter filter, AuditCursor after, int limit, int previewChars) {
    Params params = Params.of().integer("preview", previewChars).integer("limit", limit);
    String where = syntax.conditions(params).matching(filter).before(after).where();
    String sql =
        "SELECT "
            + syntax
                .selectList("", AuditRows.COLUMNS)
                .replace(AuditRows.DETAILS + ",", auditDetailsPreview() + ",")
            + " FROM "
            + tables.deadLetterAudit()
            + where
            + " ORDER BY audit_id DESC LIMIT :limit";
    return s.query(sql, params).stream().map(AuditRows::readPreview).toList();
  }

  /**
   * The select-list items {@code details} and {@code payload_length}: the details JSON with the
   * snapshot's payload cut to its first {@code :preview} characters, and that payload's recorded
   * length (NULL when the details hold no payload).
   */
  abstract String auditDetailsPreview();
}
