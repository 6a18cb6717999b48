package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.internal.dialect.OutboxSql.Moved;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableAudit;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableDeadLetters;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.DeadLetterMove;
import dev.lambdaoutbox.store.internal.rows.DeadLetterRows;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.model.SupersededDeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.SkipReason;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * How MySQL moves rows to the dead letters and back: the move (copy, then delete by id), a replay's
 * insert, the dead letters deleted, and the look-ups by id and idempotency key. (The reprocessor's
 * reads: {@link PortableDeadLetters}.)
 */
final class MysqlDeadLetters {
  /**
   * A dead letter already there under the same id has been superseded (kept in the audit, deleted)
   * before; should one appear meanwhile, the INSERT fails, overwriting nothing. The row is found by
   * its id as stored, which for an unreadable row need not be a UUID.
   */
  private static final String MOVE =
      "INSERT INTO {deadLetters} ({columns}) SELECT {values} FROM {messages} WHERE id = :id";

  private final OutboxTables tables;
  private final PortableDeadLetters reads;
  private final PortableAudit audit;
  private final String move;
  private final String reinsert;
  private final String reinsertTo;
  private final String inOutbox;
  private final String keyHolders;

  MysqlDeadLetters(
      SqlTemplate sql, OutboxTables tables, PortableDeadLetters reads, PortableAudit audit) {
    this.tables = tables;
    this.reads = reads;
    this.audit = audit;
    String values =
        DeadLetterRows.movedValues(
            ":deadId", ":tries", ":code", ":reason", ":masked", ":now", MysqlSyntax::readable);
    this.move = sql.fill(MOVE, "columns", DeadLetterRows.MOVED_COLUMNS, "values", values);
    // A replay (DeadLetterRows.REINSERT): a duplicate-key error says the id or the idempotency
    // key is taken.
    this.reinsert = sql.fill(DeadLetterRows.REINSERT, "destination", "destination");
    this.reinsertTo = sql.fill(DeadLetterRows.REINSERT, "destination", ":destination");
    this.inOutbox = sql.fill("SELECT id FROM {messages} WHERE id IN");
    this.keyHolders =
        sql.fill("SELECT id, idempotency_key FROM {messages} WHERE idempotency_key IN");
  }

  /** The dead letters with these ids, as {@link PortableDeadLetters} reads them, by IN lists. */
  static PortableDeadLetters.ByIds byIds(SqlTemplate sql) {
    String select = "SELECT {list} FROM {deadLetters} WHERE id IN {ids} ORDER BY id{locking}";
    return (s, selectList, ids, lock) -> {
      List<Row> rows = new ArrayList<>(ids.size());
      for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
        Params params = Params.of();
        String byId =
            sql.fill(
                select,
                "list",
                selectList,
                "ids",
                InLists.uuids("id", chunk, params),
                "locking",
                lock ? " FOR UPDATE" : "");
        rows.addAll(s.query(byId, params));
      }
      return rows;
    };
  }

  /**
   * Moves rows this transaction holds locked: supersedes the dead letters of their ids, copies each
   * row to the dead letters, then deletes the rows by their ids as stored.
   */
  Moved move(SqlSession s, String owner, List<DeadLetterMove> moves, Instant now) {
    if (moves.isEmpty()) {
      return new Moved(Set.of(), List.of());
    }
    List<DeadLetter> existing =
        reads.byIds(s, moves.stream().map(DeadLetterMove::deadLetterId).toList(), true);
    List<SupersededDeadLetter> superseded = audit.supersede(s, existing, owner, now, this::delete);
    List<Params> sets = new ArrayList<>(moves.size());
    for (DeadLetterMove m : moves) {
      sets.add(
          Params.of()
              .uuid("deadId", m.deadLetterId())
              .integer("tries", m.tries())
              .text("code", m.code())
              .text("reason", m.reason())
              .text("masked", m.maskedReason())
              .timestamp("now", now)
              .text("id", m.rowId()));
    }
    s.batch(move, sets);
    MysqlLocks.deleteBy(
        s, tables.messages(), "id", moves.stream().map(DeadLetterMove::rowId).toList());
    Set<UUID> moved = new HashSet<>();
    moves.forEach(m -> moved.add(m.deadLetterId()));
    return new Moved(moved, superseded);
  }

  /**
   * MySQL refuses the one INSERT with a duplicate-key error, which leaves the transaction usable;
   * the key it names says whether the id or the idempotency key was taken.
   */
  SkipReason reinsert(
      SqlSession s,
      DeadLetter row,
      String destinationOverride,
      Instant now,
      Instant due,
      String redriveGroup) {
    try {
      s.update(
          destinationOverride == null ? reinsert : reinsertTo,
          DeadLetterRows.reinsertParams(row, destinationOverride, now, due, redriveGroup));
      return null;
    } catch (DuplicateKeyException e) {
      return String.valueOf(e.getMessage()).contains(tables.messages() + "_idem_uq")
          ? SkipReason.IDEMPOTENCY_KEY_TAKEN
          : SkipReason.ALREADY_IN_OUTBOX;
    }
  }

  int delete(SqlSession s, Collection<UUID> ids) {
    return MysqlLocks.deleteBy(
        s, tables.deadLetters(), "id", ids.stream().map(UUID::toString).toList());
  }

  Set<UUID> idsInOutbox(SqlSession s, Collection<UUID> ids) {
    Set<UUID> found = new HashSet<>();
    for (List<UUID> chunk : InLists.chunks(List.copyOf(ids))) {
      Params params = Params.of();
      for (Row row : s.query(inOutbox + " " + InLists.uuids("id", chunk, params), params)) {
        found.add(row.uuid("id"));
      }
    }
    return found;
  }

  Map<String, UUID> idempotencyKeyHolders(SqlSession s, Collection<String> keys) {
    Map<String, UUID> holders = new HashMap<>();
    for (List<String> chunk : InLists.chunks(List.copyOf(keys))) {
      Params params = Params.of();
      for (Row row : s.query(keyHolders + " " + InLists.texts("key", chunk, params), params)) {
        holders.put(row.text("idempotency_key"), row.uuid("id"));
      }
    }
    return holders;
  }
}
