package dev.lambdaoutbox.store.dialect;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.Claim;
import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.DestinationHealth;
import dev.lambdaoutbox.store.DestinationState;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.OutboxStore.Backlog;
import dev.lambdaoutbox.store.SupersededDeadLetter;
import dev.lambdaoutbox.store.UnreadableRow;
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
import dev.lambdaoutbox.store.deadletter.ParkedKey;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.waiting.WaitingRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * The statements PostgreSQL and MySQL run alike, apart from how a time is written ({@link Syntax}):
 * the backlog, the destination health table (but its insert), the reprocessor's reads of dead
 * letters, and the audit rows. The two dialect homes extend it and hold everything else.
 */
abstract class PortableDialect implements StoreDialect {
  private final OutboxTables tables;
  private final Syntax syntax;
  private final String backlogSql;
  private final HealthRows healthRows;
  private final ParkedRows parkedRows;
  private final WaitingRows waitingRows;
  private final String countDueSql;
  private final String countDueUnparkedSql;
  private final String deadLetterColumns;
  private final String auditSql;
  private final String auditTrailSql;

  PortableDialect(OutboxTables tables, Syntax syntax) {
    this.tables = tables;
    this.syntax = syntax;
    // The oldest unpublished row's creation time: MIN over the partial (PostgreSQL) or
    // (status, created_at) (MySQL) unpublished index, one index entry. The dead letters counted
    // no further than the cap plus one, the destination health table, which is small, and the
    // parked keys and their events (along the key index), each counted no further than its cap;
    // the rows waiting for a destination marked misconfigured, looked up along the waiting index
    // from each such destination (the join proves the partial index's waiting_for IS NOT NULL to
    // PostgreSQL; MySQL, which may otherwise walk every PENDING row when many wait, is told), no
    // further than their cap.
    String health = tables.destinationHealth();
    String staleBefore = syntax.timestampParam().apply("staleBefore");
    this.backlogSql =
        "SELECT "
            + syntax
                .utcText()
                .apply(
                    "(SELECT MIN(created_at) FROM "
                        + tables.messages()
                        + " WHERE status = 'PENDING')")
            + " AS oldest_created_at, (SELECT count(*) FROM (SELECT 1 AS one FROM "
            + tables.deadLetters()
            + " LIMIT "
            + (OutboxStore.DEAD_LETTER_COUNT_CAP + 1)
            + ") capped) AS dead_letters, (SELECT count(*) FROM "
            + health
            + " WHERE next_probe_at >= "
            + staleBefore
            + ") AS destinations_down, (SELECT count(*) FROM "
            + health
            + " WHERE state = 'MISCONFIGURED' AND next_probe_at >= "
            + staleBefore
            + ") AS destinations_misconfigured, (SELECT count(*) FROM "
            + health
            + " WHERE next_probe_at < "
            + staleBefore
            + ") AS stale_destinations, (SELECT count(*) FROM (SELECT 1 AS one FROM "
            + health
            + " h JOIN "
            + tables.messages()
            + " w"
            + syntax.alongIndex().apply(tables.messages() + "_waiting_ix")
            + " ON w.waiting_for = h.destination_key AND w.status = 'PENDING'"
            + " WHERE h.state = 'MISCONFIGURED' LIMIT "
            + (OutboxStore.WAITING_COUNT_CAP + 1)
            + ") waiting) AS waiting_on_misconfigured, "
            + new ParkedRows(tables, syntax.timestampParam(), syntax.utcText()).countsSelectList();
    this.parkedRows = new ParkedRows(tables, syntax.timestampParam(), syntax.utcText());
    this.healthRows = new HealthRows(health, syntax.timestampParam(), syntax.utcText());
    this.waitingRows = new WaitingRows(tables.messages(), syntax);
    String due =
        " w WHERE w.status = 'PENDING' AND w.next_attempt_at <= "
            + syntax.timestampParam().apply("now");
    String walk = " ORDER BY w.next_attempt_at, w.id LIMIT :limit) due";
    this.countDueSql =
        "SELECT COUNT(*) AS due FROM (SELECT w.id FROM " + tables.messages() + due + walk;
    this.countDueUnparkedSql =
        "SELECT COUNT(*) AS due FROM (SELECT w.id FROM "
            + tables.messages()
            + due
            + " AND NOT EXISTS (SELECT 1 FROM "
            + tables.parkedKeys()
            + " k WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id)"
            + walk;
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

  /** Every dead-letter column qualified by {@code alias}, times as UTC text. */
  final String deadLetterColumns(String alias) {
    return syntax.selectList(alias, DeadLetterRows.COLUMNS);
  }

  /**
   * The dead-letter table's values for rows moved from the outbox: the carried columns of the row
   * (a time the stores could not read back replaced by {@code now}: an unreadable row's text is in
   * its reason), then attempts, replay count, error, first and last failure, death.
   *
   * @param deadId the expression of the dead letter's id
   * @param tries the expression added to the row's retry count to give its attempts
   */
  static String movedValues(
      String deadId,
      String tries,
      String code,
      String reason,
      String now,
      UnaryOperator<String> readableTime) {
    List<String> values = new ArrayList<>();
    values.add(deadId);
    for (String column : DeadLetterRows.CARRIED.subList(1, DeadLetterRows.CARRIED.size())) {
      values.add(column.endsWith("_at") ? readableTime.apply(column) : column);
    }
    values.add("retry_count + " + tries);
    values.add("replay_count");
    values.add(code);
    values.add(reason);
    values.add(readableTime.apply("first_failed_at"));
    values.add(now);
    values.add(now);
    return String.join(", ", values);
  }

  /** A WHERE clause builder writing times in this dialect. */
  final Conditions conditions(Params params) {
    return syntax.conditions(params);
  }

  /**
   * Keeps each of {@code existing}, dead letters locked by this transaction that rows of {@code
   * owner} are about to replace, whole in the audit table ({@link AuditEntry#SUPERSEDED}), then
   * deletes them, so that the rows can move in with a plain INSERT: a dead letter appearing
   * meanwhile fails the INSERT instead of being overwritten.
   */
  final List<SupersededDeadLetter> supersede(
      SqlSession s, List<DeadLetter> existing, String owner, Instant now) {
    if (existing.isEmpty()) {
      return List.of();
    }
    AuditInfo by =
        new AuditInfo(
            owner, owner, "replaced by a newer dead letter of the same event id, dead at " + now);
    recordAudit(s, AuditEntry.SUPERSEDED, existing, null, by, now);
    deleteDeadLetters(s, existing.stream().map(DeadLetter::id).toList());
    return existing.stream().map(d -> new SupersededDeadLetter(d.id(), d.deadAt(), now)).toList();
  }

  /** The destination health statements, in this dialect's time syntax. */
  final HealthRows healthRows() {
    return healthRows;
  }

  /** The parked-keys statements, in this dialect's time syntax. */
  final ParkedRows parkedRows() {
    return parkedRows;
  }

  @Override
  public Backlog backlog(SqlSession s, Instant now, Instant staleBefore) {
    return Results.backlog(
        s.query(backlogSql, Params.of().timestamp("staleBefore", staleBefore)).get(0), now);
  }

  @Override
  public final String backlogSql() {
    return backlogSql;
  }

  // ---- destination health

  @Override
  public List<DestinationHealth> destinationHealth(SqlSession s) {
    return s.query(healthRows.selectAll(), Params.none()).stream().map(HealthRows::read).toList();
  }

  @Override
  public DestinationHealth destinationHealth(SqlSession s, String destination, boolean lock) {
    List<Row> rows = s.query(healthRows.selectOne(lock), HealthRows.key(destination));
    return rows.isEmpty() ? null : HealthRows.read(rows.get(0));
  }

  @Override
  public boolean claimProbe(SqlSession s, String destination, Instant now, Instant next) {
    return s.update(healthRows.claimProbe(), HealthRows.claimParams(destination, now, next)) == 1;
  }

  @Override
  public boolean recordFailedProbe(
      SqlSession s,
      String destination,
      DestinationState state,
      String errorCode,
      String reason,
      Instant now) {
    return s.update(
            healthRows.failedProbe(),
            HealthRows.failedProbeParams(destination, state, errorCode, reason, now))
        == 1;
  }

  @Override
  public boolean deleteDestinationHealth(SqlSession s, String destination) {
    return s.update(healthRows.delete(), HealthRows.key(destination)) == 1;
  }

  @Override
  public int deleteStaleDestinationHealth(SqlSession s, Instant staleBefore) {
    return s.update(healthRows.deleteStale(), Params.of().timestamp("staleBefore", staleBefore));
  }

  // ---- the claim's unreadable rows

  /**
   * A claim's result from its rows, read one by one: the unreadable ones, which this transaction
   * holds, are moved to the dead letters at once; with {@code ordered}, each parks its aggregate
   * first, as any dead-lettered head does.
   */
  final Claim claimed(
      SqlSession s, String owner, Instant now, MessageRows.Read read, boolean ordered) {
    if (read.unreadable().isEmpty()) {
      return Claim.of(read.messages());
    }
    Map<UUID, Integer> parked =
        ordered ? parkUnreadable(s, owner, read.unreadable(), now) : Map.of();
    Moved moved = moveUnreadable(s, owner, read.unreadable(), now);
    return new Claim(read.messages(), read.unreadable(), moved.superseded(), parked);
  }

  /**
   * Moves claimed rows that could not be read (this transaction holds them) to the dead letters.
   */
  abstract Moved moveUnreadable(SqlSession s, String owner, List<UnreadableRow> rows, Instant now);

  /**
   * Parks the aggregates of claimed heads that could not be read, before they are moved; returns
   * per dead letter id how many events behind it parked.
   */
  abstract Map<UUID, Integer> parkUnreadable(
      SqlSession s, String owner, List<UnreadableRow> rows, Instant now);

  // ---- parked keys

  @Override
  public ParkedKey parkedKey(SqlSession s, UUID deadLetterId, boolean lock) {
    List<Row> rows =
        s.query(parkedRows.selectByDeadLetter(lock), Params.of().uuid("id", deadLetterId));
    return rows.isEmpty() ? null : ParkedRows.read(rows.get(0));
  }

  @Override
  public List<ParkedKey> parkedKeys(SqlSession s, int limit) {
    return s.query(parkedRows.list(), Params.of().integer("limit", limit)).stream()
        .map(ParkedRows::read)
        .toList();
  }

  @Override
  public long countParkedKeys(SqlSession s) {
    return s.query(parkedRows.count(), Params.none()).get(0).longValue("row_count");
  }

  @Override
  public int release(SqlSession s, ParkedKey key, boolean restoreHead, Instant now) {
    if (restoreHead) {
      s.update(
          parkedRows.restoreHead(),
          Params.of().longValue("seq", key.headSeq()).uuid("id", key.deadLetterId()));
    }
    int unparked = s.update(parkedRows.unpark(), ParkedRows.unparkParams(key, now));
    s.update(parkedRows.delete(), ParkedRows.keyParams(key));
    return unparked;
  }

  @Override
  public int countDue(SqlSession s, Instant now, int limit, boolean ordered) {
    Params params = Params.of().timestamp("now", now).integer("limit", limit);
    String sql = ordered ? countDueUnparkedSql : countDueSql;
    return (int) s.query(sql, params).get(0).longValue("due");
  }

  // ---- the rows waiting for a destination that is down

  @Override
  public WaitingCount countWaiting(SqlSession s, String key, DeadLetterFilter filter, int cap) {
    Params params = Params.of().text("key", key).integer("cap", cap);
    Row row = s.query(waitingRows.count(filter, params), params).get(0);
    return new WaitingCount(row.longValue("row_count"), row.instant("oldest_created_at"));
  }

  @Override
  public List<WaitingRow> waitingRows(
      SqlSession s, String key, Instant now, int limit, boolean lock) {
    return s.query(waitingRows.select(lock), WaitingRows.selectParams(key, now, limit)).stream()
        .map(WaitingRows::read)
        .toList();
  }

  @Override
  public int retarget(SqlSession s, Collection<UUID> ids, String destination, Instant now) {
    Params params = Params.of().text("destination", destination).timestamp("now", now);
    return s.update(waitingRows.retarget(ids, params), params);
  }

  @Override
  public void lease(SqlSession s, Collection<UUID> ids, String owner, Instant until) {
    Params params = Params.of().text("owner", owner).timestamp("until", until);
    s.update(waitingRows.lease(ids, params), params);
  }

  @Override
  public void recordRetargetAudit(
      SqlSession s, List<WaitingRow> rows, String from, String to, AuditInfo audit, Instant now) {
    if (!rows.isEmpty()) {
      s.batch(auditSql, AuditRows.retargetParameters(rows, from, to, audit, now));
    }
  }

  // ---- the reprocessor's dead letters

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

  /**
   * The {@code waiting_for} a deferral records: the key of the destination the row waits for
   * ({@link DestinationHealth#key}), null when it names none.
   */
  static String waitingFor(DeliveryOutcome.Defer deferral) {
    return deferral.destination() == null ? null : DestinationHealth.key(deferral.destination());
  }

  /**
   * The parameters of a purge's statement: expired before {@code cutoff}, {@code limit} at most.
   */
  static Params purgeParams(Instant cutoff, int limit) {
    return Params.of().timestamp("cutoff", cutoff).integer("limit", limit);
  }
}
