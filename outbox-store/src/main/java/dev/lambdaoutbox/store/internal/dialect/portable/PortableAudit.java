package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.rows.AuditRows;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.audit.AuditEntry;
import dev.lambdaoutbox.store.model.audit.AuditFilter;
import dev.lambdaoutbox.store.model.audit.AuditInfo;
import dev.lambdaoutbox.store.model.audit.AuditPage;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.waiting.WaitingRow;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * The audit table's statements, the same in every dialect apart from how a time and a JSON value
 * are written and how the audit action previews a snapshot's payload (given by the dialect): rows
 * written for what operators and pollers did to dead letters, and read back.
 */
public final class PortableAudit {
  private final SqlTemplate sql;
  private final String insert;
  private final String insertSnapshot;
  private final String trail;
  private final String sizedTrail;
  private final ColumnPieces details;
  private final String entries;

  /**
   * @param detailsPreview the select-list items {@code details} and {@code payload_length}: the
   *     details JSON with the snapshot's payload cut to its first {@code :preview} characters, and
   *     that payload's recorded length (NULL when the details hold no payload)
   * @param snapshotPayload the {@code details} parameter's JSON with the snapshot's payload set to
   *     the dead letter's own, {@code d.payload}, given that parameter as the dialect reads JSON
   */
  public PortableAudit(
      SqlTemplate sql, String detailsPreview, UnaryOperator<String> snapshotPayload) {
    this.sql = sql;
    List<String> values = new ArrayList<>();
    for (String column : AuditRows.INSERTED) {
      values.add(
          column.endsWith("_at")
              ? "{at:" + column + "}"
              : column.equals(AuditRows.DETAILS) ? "{json:" + column + "}" : ":" + column);
    }
    this.insert =
        sql.fill(
            "INSERT INTO {deadLetterAudit} ({columns}) VALUES (" + String.join(", ", values) + ")",
            "columns",
            String.join(", ", AuditRows.INSERTED));
    // A dead letter's snapshot takes its payload, of any size, from the row in SQL: the function
    // never reads it whole (a claim or a read of a dead letter returns a large payload cut).
    List<String> snapshot = new ArrayList<>(values);
    String details = "{json:" + AuditRows.DETAILS + "}";
    snapshot.set(snapshot.indexOf(details), snapshotPayload.apply(details));
    this.insertSnapshot =
        sql.fill(
            "INSERT INTO {deadLetterAudit} ({columns}) SELECT "
                + String.join(", ", snapshot)
                + " FROM {deadLetters} d WHERE d.id = :dead_letter_id",
            "columns",
            String.join(", ", AuditRows.INSERTED));
    this.trail =
        sql.fill(
            """
            SELECT {columns} FROM {deadLetterAudit}
            WHERE dead_letter_id = :id ORDER BY audit_id
            """,
            "columns",
            sql.syntax().selectList("", AuditRows.COLUMNS));
    // Where rows are bounded, large details are read in pieces, as text in both dialects (concat
    // with '' gives a JSON column's text, as the Data API returns it).
    String text = "concat(" + AuditRows.DETAILS + ", '')";
    this.sizedTrail =
        trail.replace(
            AuditRows.DETAILS + ",",
            "CASE WHEN octet_length("
                + text
                + ") > "
                + ResultBudget.MAX_DETAILS_IN_ROW_BYTES
                + " THEN NULL ELSE "
                + AuditRows.DETAILS
                + " END AS "
                + AuditRows.DETAILS
                + ", octet_length("
                + text
                + ") AS details_bytes,");
    this.details = new ColumnPieces(sql, "{deadLetterAudit}", text, "audit_id = :id");
    this.entries =
        sql.syntax()
            .selectList("", AuditRows.COLUMNS)
            .replace(AuditRows.DETAILS + ",", detailsPreview + ",");
  }

  /**
   * One audit row per dead letter, each with a snapshot of the row, its payload copied from the
   * dead-letter table: the rows must still be there.
   */
  public void record(
      SqlSession s,
      String action,
      List<DeadLetter> rows,
      String destinationOverride,
      AuditInfo audit,
      Instant now) {
    if (!rows.isEmpty()) {
      s.batch(insertSnapshot, AuditRows.parameters(action, rows, destinationOverride, audit, now));
    }
  }

  /**
   * One audit row per retargeted row ({@link AuditEntry#RETARGET}): the destination it waited for,
   * the one it goes to, and the row as it was (without its payload, which goes on with the row).
   */
  public void recordRetarget(
      SqlSession s, List<WaitingRow> rows, String from, String to, AuditInfo audit, Instant now) {
    if (!rows.isEmpty()) {
      s.batch(insert, AuditRows.retargetParameters(rows, from, to, audit, now));
    }
  }

  /**
   * One audit row for one step of a rewind ({@link AuditEntry#REWIND}): {@code rewindId} in the id
   * column, so that a rewind's steps are read together, and {@code details} saying what the step
   * copied and where to.
   */
  public void recordRewind(
      SqlSession s, UUID rewindId, String details, AuditInfo audit, Instant now) {
    s.update(insert, AuditRows.rewindParameters(rewindId, details, audit, now));
  }

  /** One audit row per row a re-drive held or resumed ({@link AuditRows#redriveParameters}). */
  public void recordRedrive(
      SqlSession s,
      String action,
      List<UUID> ids,
      String group,
      java.util.function.IntFunction<Instant> due,
      AuditInfo audit,
      Instant now) {
    if (!ids.isEmpty()) {
      s.batch(insert, AuditRows.redriveParameters(action, ids, group, due, audit, now));
    }
  }

  /** What operators did to one dead letter, oldest first. */
  public List<AuditEntry> trail(SqlSession s, UUID deadLetterId) {
    Params params = Params.of().uuid("id", deadLetterId);
    if (!ResultBudget.rowBounded(s)) {
      return s.query(trail, params).stream().map(AuditRows::read).toList();
    }
    List<AuditEntry> entries = new ArrayList<>();
    for (Row row : s.query(sizedTrail, params)) {
      Row whole = row;
      if (row.text(AuditRows.DETAILS) == null && row.text("details_bytes") != null) {
        long auditId = row.longValue("audit_id");
        if (!(details.read(s, () -> Params.of().longValue("id", auditId), Long.MAX_VALUE)
            instanceof ColumnPieces.Whole w)) {
          throw new IllegalStateException("the audit entry " + auditId + " went while it was read");
        }
        whole = row.with(AuditRows.DETAILS, w.text());
      }
      entries.add(AuditRows.read(whole));
    }
    return entries;
  }

  /**
   * Up to {@code limit} audit entries {@code filter} matches, written before {@code after} (null:
   * from the newest), newest first, each snapshot's payload cut to {@code previewChars} characters.
   */
  public List<AuditPage.Entry> entries(
      SqlSession s, AuditFilter filter, AuditCursor after, int limit, int previewChars) {
    Params params =
        Params.of()
            .integer("preview", ResultBudget.previewChars(s, previewChars))
            .integer("limit", limit);
    String where = sql.syntax().conditions(params).matching(filter).before(after).where();
    String select =
        sql.fill(
            "SELECT {columns} FROM {deadLetterAudit}{where} ORDER BY audit_id DESC LIMIT :limit",
            "columns",
            entries,
            "where",
            where);
    return s.query(select, params).stream().map(AuditRows::readPreview).toList();
  }

  /**
   * Keeps each of {@code existing}, dead letters locked by this transaction that rows of {@code
   * owner} are about to replace, whole in the audit table ({@link AuditEntry#SUPERSEDED}), then
   * deletes them ({@code delete}), so that the rows can move in with a plain INSERT: a dead letter
   * appearing meanwhile fails the INSERT instead of being overwritten.
   */
  public List<SupersededDeadLetter> supersede(
      SqlSession s,
      List<DeadLetter> existing,
      String owner,
      Instant now,
      BiConsumer<SqlSession, Collection<UUID>> delete) {
    if (existing.isEmpty()) {
      return List.of();
    }
    AuditInfo by =
        new AuditInfo(
            owner, owner, "replaced by a newer dead letter of the same event id, dead at " + now);
    record(s, AuditEntry.SUPERSEDED, existing, null, by, now);
    delete.accept(s, existing.stream().map(DeadLetter::id).toList());
    return existing.stream().map(d -> new SupersededDeadLetter(d.id(), d.deadAt(), now)).toList();
  }
}
