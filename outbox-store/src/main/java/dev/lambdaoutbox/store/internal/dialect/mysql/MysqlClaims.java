package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * How MySQL claims rows, and holds back the rows behind an ordered claim's waiting heads. There is
 * no UPDATE ... RETURNING: a claim locks its rows with a SELECT first, then leases them by id (see
 * {@link MysqlSql#claim}).
 */
final class MysqlClaims {
  /**
   * The claim, first step: walk the (status, next_attempt_at, id) index in order and lock the rows
   * returned, skipping locked ones.
   */
  private static final String CLAIM =
      """
      SELECT {columns} FROM {messages} c
      WHERE c.status = 'PENDING' AND c.next_attempt_at <= :now
      ORDER BY c.next_attempt_at, c.id LIMIT :limit FOR UPDATE SKIP LOCKED
      """;

  /**
   * Sized to a result budget, the first step locks the due rows but reads only their sizes; the
   * rows that fit are then read by id ({@link #CLAIMED_ROWS}).
   */
  private static final String CLAIM_SIZES =
      """
      SELECT id, {bytes} AS bytes FROM {messages}
      WHERE status = 'PENDING' AND next_attempt_at <= :now
      ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED
      """;

  /**
   * The rows that fit, by id; a payload too large for any broker cut, and where rows are bounded a
   * row too large for one ({@link ResultBudget#sizedClaimColumns}); with how many rows were locked
   * ({@code due_rows}), so a claim cut by bytes is not taken for a drained backlog.
   */
  private static final String CLAIMED_ROWS = "SELECT {columns} FROM {messages} WHERE id IN ";

  /**
   * The window holdBehindWaitingHeads walks: of the :scan oldest due rows, read along the due index
   * without locking, those of aggregates not parked. The :scan rows are read first, so a parked
   * aggregate's events, however many are due, cost no more than their share of the window.
   */
  private static final String WINDOW =
      """
      FROM (
        SELECT w.id, w.aggregate_type, w.aggregate_id, w.seq, w.next_attempt_at FROM (
          SELECT id, aggregate_type, aggregate_id, seq, next_attempt_at FROM {messages}
          WHERE status = 'PENDING' AND next_attempt_at <= :now
          ORDER BY next_attempt_at, id LIMIT :scan) w
        WHERE NOT EXISTS (SELECT 1 FROM {parkedKeys} k
          WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id)) c
      """;

  /**
   * The seq of the first PENDING row of a window row's aggregate, along the key index
   * (aggregate_type, aggregate_id, status, seq): one index dive that reads one entry (a NOT EXISTS
   * with seq < would read the aggregate's whole range).
   */
  private static final String HEAD_SEQ =
      """
      (SELECT e.seq FROM {messages} e
       WHERE e.aggregate_type = {row}.aggregate_type AND e.aggregate_id = {row}.aggregate_id
         AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1)
      """;

  /**
   * The ordered claim's heads, by primary key (the IN list follows, then {@link #HEADS_END}),
   * locked SKIP LOCKED and checked again as locked (a locking read sees the latest version): still
   * PENDING and due, so a row another claim leased meanwhile is skipped, and still the first
   * PENDING row of its aggregate (one dive into the key index). An earlier row that is leased,
   * backing off or deferred is PENDING, so it holds up the rows behind it.
   */
  private static final String HEADS =
      """
      SELECT {columns} FROM {messages} m
      WHERE m.status = 'PENDING' AND m.next_attempt_at <= :now AND m.seq = {headSeq} AND m.id IN
      """;

  private static final String HEADS_END =
      " ORDER BY m.next_attempt_at, m.id FOR UPDATE SKIP LOCKED";

  /** The lease of the locked rows, by id. */
  private static final String LEASE =
      """
      UPDATE {messages}
      SET next_attempt_at = :leaseEnd, locked_until = :leaseEnd, locked_by = :owner
      WHERE id IN
      """;

  /**
   * Holding back the rows behind heads that now back off or wait for their destination: they are
   * due no earlier than their head, so that they do not crowd the front of the ordered claim's
   * window. Only that: they cannot go before their head whether they move or not, as the claim
   * takes no row behind a PENDING one of its aggregate. So the rows are locked SKIP LOCKED first (a
   * completion never waits for a lock here, nor fails for one; a row skipped stays where it was),
   * each head found by primary key and probing the key index for the rows behind it (STRAIGHT_JOIN:
   * the head first, whatever the statistics say; the key index named, as once the head is read its
   * due time is a constant, and on an empty table's statistics the due index looked cheaper), then
   * moved by primary key.
   *
   * <p>One head a statement, and at most :perHead rows behind it, the first in seq order along the
   * key index, so that a completion updates a bounded number of rows whatever the aggregate's size.
   * The rows left where they were cannot be published out of order: the ordered claim takes only
   * heads, rows with no earlier PENDING row of their aggregate, and this head stays PENDING. They
   * keep their earlier place in the due index only until a short claim's window meets them
   * (holdBehindWaitingHeads moves them), or until their turn comes.
   */
  private static final String HOLD_BEHIND =
      """
      SELECT STRAIGHT_JOIN m.id, {utc:h.next_attempt_at} AS due
      FROM {messages} h
      JOIN {messages} m{index:{messages}_key_ix}
        ON m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id
      WHERE h.status = 'PENDING' AND m.status = 'PENDING' AND m.seq > h.seq
        AND m.next_attempt_at < h.next_attempt_at AND h.id = :id
      ORDER BY m.seq LIMIT :perHead FOR UPDATE SKIP LOCKED
      """;

  /**
   * Holding back, after a short ordered claim, the rows of its window that are due before their own
   * aggregate's head while that head waits: the window walked as the claim walks it, each row's
   * head found along the key index (one dive for its seq, one for the row), a row taken when its
   * head is due later and not under a live lease. The rows and their heads are locked SKIP LOCKED,
   * then the rows moved by primary key.
   */
  private static final String HOLD_BEHIND_WAITING =
      """
      SELECT STRAIGHT_JOIN m.id, {utc:h.next_attempt_at} AS due {window}
      JOIN {messages} h ON h.aggregate_type = c.aggregate_type AND h.aggregate_id = c.aggregate_id
        AND h.status = 'PENDING' AND h.seq = {headSeq}
      JOIN {messages} m ON m.id = c.id
      WHERE h.seq < c.seq AND h.next_attempt_at > c.next_attempt_at
        AND (h.locked_until IS NULL OR h.locked_until <= :now) AND m.status = 'PENDING'
      FOR UPDATE SKIP LOCKED
      """;

  final String claimSql;
  final String claimHeadsSql;
  final MysqlKeyWalk walk;
  final String holdBehindWaitingSql;
  private final String claimSizesSql;
  private final String claimHeadsSizesSql;
  private final String claimedRows;
  private final String claimedRowsBounded;
  private final String lease;
  final String holdBehind;
  private final String moveBehind;

  MysqlClaims(SqlTemplate sql) {
    String window = sql.fill(WINDOW);
    this.claimSql =
        sql.fill(CLAIM, "columns", MysqlSyntax.SYNTAX.selectList("c", MessageRows.COLUMNS));
    this.claimHeadsSql =
        sql.fill(
            HEADS,
            "columns",
            MysqlSyntax.SYNTAX.selectList("m", MessageRows.COLUMNS),
            "headSeq",
            sql.fill(HEAD_SEQ, "row", "m"));
    this.walk = new MysqlKeyWalk(sql);
    this.claimSizesSql = sql.fill(CLAIM_SIZES, "bytes", ResultBudget.MESSAGE_BYTES);
    this.claimHeadsSizesSql =
        sql.fill(
            HEADS,
            "columns",
            "m.id, " + ResultBudget.messageBytes("m") + " AS bytes",
            "headSeq",
            sql.fill(HEAD_SEQ, "row", "m"));
    String columns = MysqlSyntax.SYNTAX.selectList("", MessageRows.COLUMNS);
    this.claimedRows =
        sql.fill(
            CLAIMED_ROWS,
            "columns",
            ResultBudget.sizedClaimColumns(columns, "", false) + ", :dueRows AS due_rows");
    this.claimedRowsBounded =
        sql.fill(
            CLAIMED_ROWS,
            "columns",
            ResultBudget.sizedClaimColumns(columns, "", true) + ", :dueRows AS due_rows");
    this.lease = sql.fill(LEASE);
    this.holdBehind = sql.fill(HOLD_BEHIND);
    this.holdBehindWaitingSql =
        sql.fill(HOLD_BEHIND_WAITING, "window", window, "headSeq", sql.fill(HEAD_SEQ, "row", "c"));
    this.moveBehind = sql.fill("UPDATE {messages} SET next_attempt_at = :due WHERE id IN");
  }

  /** Locks the due rows (those that fit, under a result budget), unread and not yet leased. */
  List<Row> claim(SqlSession s, int limit, Instant now) {
    Params params = Params.of().timestamp("now", now).integer("limit", limit);
    return ResultBudget.unbounded(s)
        ? s.query(claimSql, params)
        : claimWithin(s, claimSizesSql, params);
  }

  /**
   * Locks the heads among {@code heads} (those that fit, under a result budget), unread and not yet
   * leased.
   */
  List<Row> claimHeads(SqlSession s, List<String> heads, Instant now) {
    List<Row> locked = new ArrayList<>();
    for (List<String> chunk : InLists.chunks(heads)) {
      Params params = Params.of().timestamp("now", now);
      String ids = InLists.texts("id", chunk, params) + HEADS_END;
      locked.addAll(
          ResultBudget.unbounded(s)
              ? s.query(claimHeadsSql + " " + ids, params)
              : claimWithin(s, claimHeadsSizesSql + " " + ids, params));
    }
    return locked;
  }

  /**
   * The ordered claim's locking statement for {@code heads}, with its parameters in {@code params}.
   */
  String claimHeadsSql(List<String> heads, Params params) {
    return claimHeadsSql + " " + InLists.texts("id", heads, params) + HEADS_END;
  }

  /** Leases the locked rows {@code ids} to {@code owner} until {@code leaseEnd}. */
  void lease(SqlSession s, List<UUID> ids, String owner, Instant leaseEnd) {
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params params = Params.of().timestamp("leaseEnd", leaseEnd).text("owner", owner);
      s.update(lease + " " + InLists.uuids("id", chunk, params), params);
    }
  }

  /**
   * Locks the due rows (or heads) with {@code sizesSql}, keeps those that fit the session's budget,
   * and reads them, in order. Ids go as stored: an unreadable row's need not be a UUID.
   */
  private List<Row> claimWithin(SqlSession s, String sizesSql, Params locking) {
    List<Row> sizes = s.query(sizesSql, locking);
    int fit = ResultBudget.fitting(sizes, s.maxResultBytes());
    Map<String, Row> byId = new HashMap<>();
    List<String> ids = sizes.subList(0, fit).stream().map(r -> r.text("id")).toList();
    String read = ResultBudget.rowBounded(s) ? claimedRowsBounded : claimedRows;
    for (List<String> chunk : InLists.chunks(ids)) {
      Params params = Params.of().integer("dueRows", sizes.size());
      for (Row row : s.query(read + " " + InLists.texts("id", chunk, params), params)) {
        byId.put(row.text("id"), row);
      }
    }
    return ids.stream().map(byId::get).toList();
  }

  void holdBehind(SqlSession s, Collection<UUID> heads, int perHead) {
    List<Row> behind = new ArrayList<>();
    for (UUID head : heads) {
      behind.addAll(s.query(holdBehind, behindParams(head, perHead)));
    }
    moveToTheirDueTimes(s, behind);
  }

  int holdBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return moveToTheirDueTimes(s, s.query(holdBehindWaitingSql, windowParams(now, limit)));
  }

  /** The parameters of the rows behind {@code head} to lock, up to {@code perHead}. */
  static Params behindParams(UUID head, int perHead) {
    return Params.of().uuid("id", head).integer("perHead", perHead);
  }

  /** Moves the locked rows ({@code id}, {@code due}) to their due times, by primary key. */
  private int moveToTheirDueTimes(SqlSession s, List<Row> rows) {
    Map<Instant, List<UUID>> byDue = new HashMap<>();
    for (Row row : rows) {
      byDue.computeIfAbsent(row.instant("due"), d -> new ArrayList<>()).add(row.uuid("id"));
    }
    int moved = 0;
    for (Map.Entry<Instant, List<UUID>> due : byDue.entrySet()) {
      for (List<UUID> chunk : InLists.chunks(due.getValue())) {
        Params params = Params.of().timestamp("due", due.getKey());
        moved += s.update(moveBehind + " " + InLists.uuids("id", chunk, params), params);
      }
    }
    return moved;
  }

  static Params windowParams(Instant now, int limit) {
    return Params.of().timestamp("now", now).integer("scan", OutboxSql.scan(limit));
  }
}
