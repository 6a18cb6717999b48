package dev.lambdaoutbox.store.internal.dialect.postgres;

import dev.lambdaoutbox.store.internal.dialect.OutboxSql.Moved;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableAudit;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableDeadLetters;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.DeadLetterMove;
import dev.lambdaoutbox.store.internal.rows.DeadLetterRows;
import dev.lambdaoutbox.store.internal.rows.JsonLists;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * How PostgreSQL moves rows to the dead letters and back: the move (one statement), a replay's
 * insert, the dead letters deleted, and the look-ups by id and idempotency key. (The reprocessor's
 * reads: {@link PortableDeadLetters}.)
 */
final class PostgresDeadLetters {
  /**
   * A dead letter is a DELETE ... RETURNING feeding the INSERT, so exactly the rows removed are the
   * rows inserted. A dead letter already there under the same id has been superseded (kept in the
   * audit, deleted) before; should one appear meanwhile, the INSERT fails, overwriting nothing.
   */
  private static final String MOVE =
      """
      WITH d AS (
        SELECT * FROM json_to_recordset(CAST(:deadLetters AS json))
          AS d(id uuid, dead_id uuid, tries int, code text, reason text, masked text)),
      gone AS (
        DELETE FROM {messages} m USING d
        WHERE m.id = d.id AND m.locked_by = :owner AND m.status = 'PENDING'
        RETURNING m.*, d.dead_id, d.tries, d.code, d.reason, d.masked)
      INSERT INTO {deadLetters} ({columns}) SELECT {values} FROM gone RETURNING id
      """;

  /** The dead letters the rows {@code :owner} holds would replace, locked with those rows. */
  private static final String OWNED =
      """
      SELECT {columns} FROM {deadLetters} d JOIN {messages} m ON m.id = d.id
      WHERE d.id = ANY({idArray}) AND m.locked_by = :owner AND m.status = 'PENDING' FOR UPDATE
      """;

  /**
   * A replay ({@link DeadLetterRows#REINSERT}): ON CONFLICT DO NOTHING skips a row whose id or
   * idempotency key is taken.
   */
  private static final String REINSERT = DeadLetterRows.REINSERT + " ON CONFLICT DO NOTHING";

  private final PortableAudit audit;
  private final String move;
  private final String owned;
  private final String ownedSized;
  private final PortableDeadLetters reads;
  private final String reinsert;
  private final String reinsertTo;
  private final String delete;
  private final String inOutbox;
  private final String keyHolders;

  PostgresDeadLetters(SqlTemplate sql, PortableDeadLetters reads, PortableAudit audit) {
    this.audit = audit;
    String values =
        DeadLetterRows.movedValues(
            "dead_id",
            "tries",
            "code",
            "reason",
            "masked",
            PostgresSyntax.at("now"),
            PostgresSyntax::readable);
    this.move = sql.fill(MOVE, "columns", DeadLetterRows.MOVED_COLUMNS, "values", values);
    this.reads = reads;
    this.owned = sql.fill(OWNED, "columns", reads.columns("d"), "idArray", PostgresSyntax.ID_ARRAY);
    // Under a result budget each row within the Data API's row limit, its large headers in pieces.
    this.ownedSized =
        sql.fill(OWNED, "columns", reads.sizedColumns("d"), "idArray", PostgresSyntax.ID_ARRAY);
    this.reinsert = sql.fill(REINSERT, "destination", "destination");
    this.reinsertTo = sql.fill(REINSERT, "destination", ":destination");
    this.delete =
        sql.fill(
            "DELETE FROM {deadLetters} WHERE id = ANY({idArray})",
            "idArray",
            PostgresSyntax.ID_ARRAY);
    this.inOutbox =
        sql.fill(
            "SELECT id FROM {messages} WHERE id = ANY({idArray})",
            "idArray",
            PostgresSyntax.ID_ARRAY);
    this.keyHolders =
        sql.fill(
            """
            SELECT id, idempotency_key FROM {messages}
            WHERE idempotency_key = ANY(ARRAY(
              SELECT value FROM json_array_elements_text(CAST(:keys AS json))))
            """);
  }

  /** The dead letters with these ids, as {@link PortableDeadLetters} reads them. */
  static PortableDeadLetters.ByIds byIds(SqlTemplate sql) {
    String select =
        "SELECT {list} FROM {deadLetters} WHERE id = ANY({idArray}) ORDER BY id{locking}";
    return (s, selectList, ids, lock) ->
        s.query(
            sql.fill(
                select,
                "list",
                selectList,
                "idArray",
                PostgresSyntax.ID_ARRAY,
                "locking",
                lock ? " FOR UPDATE" : ""),
            Params.of().json("ids", JsonLists.uuids(ids)));
  }

  /**
   * Moves the rows {@code owner} holds: first supersedes the dead letters of their ids (locking
   * them and the rows), then one statement deletes the rows and inserts them as dead letters.
   */
  Moved move(SqlSession s, String owner, List<DeadLetterMove> moves, Instant now) {
    List<UUID> ids = moves.stream().map(DeadLetterMove::deadLetterId).toList();
    Params params = Params.of().json("ids", JsonLists.uuids(ids)).text("owner", owner);
    List<DeadLetter> existing =
        DeadLetterRows.readAll(
            ResultBudget.rowBounded(s)
                ? reads.wholeHeaders(s, s.query(ownedSized, params))
                : s.query(owned, params));
    List<SupersededDeadLetter> superseded = audit.supersede(s, existing, owner, now, this::delete);
    String json =
        JsonLists.records(
            moves,
            (m, o) ->
                o.put("id", m.rowId())
                    .put("dead_id", m.deadLetterId().toString())
                    .put("tries", m.tries())
                    .put("code", m.code())
                    .put("reason", m.reason())
                    .put("masked", m.maskedReason()));
    Set<UUID> moved =
        PostgresCompletions.idsOf(
            s.query(
                move,
                Params.of().json("deadLetters", json).text("owner", owner).timestamp("now", now)));
    return new Moved(moved, superseded);
  }

  /**
   * {@code ON CONFLICT DO NOTHING} skips a row whose id or idempotency key is taken and keeps the
   * transaction usable; a look-up then says which.
   */
  SkipReason reinsert(
      SqlSession s,
      DeadLetter row,
      String destinationOverride,
      Instant now,
      Instant due,
      String redriveGroup) {
    String insert = destinationOverride == null ? reinsert : reinsertTo;
    if (s.update(
            insert, DeadLetterRows.reinsertParams(row, destinationOverride, now, due, redriveGroup))
        == 1) {
      return null;
    }
    return idsInOutbox(s, List.of(row.id())).isEmpty()
        ? SkipReason.IDEMPOTENCY_KEY_TAKEN
        : SkipReason.ALREADY_IN_OUTBOX;
  }

  int delete(SqlSession s, Collection<UUID> ids) {
    return s.update(delete, Params.of().json("ids", JsonLists.uuids(ids)));
  }

  Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids) {
    Set<UUID> found = new HashSet<>();
    if (!ids.isEmpty()) {
      for (Row row : s.query(inOutbox, Params.of().json("ids", JsonLists.uuids(ids)))) {
        found.add(row.uuid("id"));
      }
    }
    return found;
  }

  Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys) {
    Map<String, UUID> holders = new HashMap<>();
    if (!keys.isEmpty()) {
      for (Row row : s.query(keyHolders, Params.of().json("keys", JsonLists.texts(keys)))) {
        holders.put(row.text("idempotency_key"), row.uuid("id"));
      }
    }
    return holders;
  }
}
