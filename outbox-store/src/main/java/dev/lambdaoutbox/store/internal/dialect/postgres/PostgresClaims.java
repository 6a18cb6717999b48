package dev.lambdaoutbox.store.internal.dialect.postgres;

import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.dialect.portable.KeyWalk;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.JsonLists;
import dev.lambdaoutbox.store.internal.rows.MessageRows;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import dev.lambdaoutbox.store.sql.internal.ResultBudget;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * How PostgreSQL claims rows, and holds back the rows behind an ordered claim's waiting heads. Each
 * claim is one statement: a CTE finds and locks the rows, an UPDATE leases exactly those and
 * returns them in order. The ordered claim first walks the key index for the heads (WALK).
 */
final class PostgresClaims {
  /**
   * The claim around {@code {due}}, the statement that finds and locks the rows ({@code ctid, id,
   * next_attempt_at}). The UPDATE leases exactly those rows and returns them, sorted by their due
   * time before the lease moved it. It finds its rows by the physical row ids (ctid) the locking
   * SELECT returned, through = ANY(ARRAY(...)): a TID scan, with no second index look-up per row,
   * and a plan shape that cannot change. (Joining due on id lets a generic plan, which the server
   * adopts for a statement prepared over and over, pick a hash join over a sequential scan of the
   * whole table: claim cost would grow with the table.) The locked rows cannot move before the
   * UPDATE, as this transaction holds their locks; were a ctid ever stale, that row would simply
   * not be claimed this time.
   */
  private static final String CLAIM =
      """
      WITH due AS ({due}),
      claimed AS (
        UPDATE {messages} m
        SET next_attempt_at = {at:leaseEnd}, locked_until = {at:leaseEnd}, locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM due))
        RETURNING {returning})
      SELECT claimed.* FROM claimed JOIN due USING (id) ORDER BY due.next_attempt_at, due.id
      """;

  /**
   * The claim sized to a result budget: {@code {due}} also gives each row's {@code bytes}; of the
   * rows it locked, the fit CTE keeps the first ones whose running size stays within :maxBytes
   * (always the first); the rest stay due and are released at commit. Each row says how many were
   * locked ({@code due_rows}), so a claim cut by bytes is not taken for a drained backlog.
   */
  private static final String CLAIM_SIZED =
      """
      WITH due AS ({due}),
      fit AS (
        SELECT ctid, id, next_attempt_at FROM (
          SELECT ctid, id, next_attempt_at, sum(bytes) OVER w AS running, row_number() OVER w AS n
          FROM due WINDOW w AS (ORDER BY next_attempt_at, id)) sized
        WHERE running <= :maxBytes OR n = 1),
      claimed AS (
        UPDATE {messages} m
        SET next_attempt_at = {at:leaseEnd}, locked_until = {at:leaseEnd}, locked_by = :owner
        WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM fit))
        RETURNING {returning})
      SELECT claimed.*, (SELECT count(*) FROM due) AS due_rows
      FROM claimed JOIN fit USING (id) ORDER BY fit.next_attempt_at, fit.id
      """;

  /** The due rows, along the partial due index (WHERE status = 'PENDING'), locked as taken. */
  private static final String DUE =
      """
      SELECT ctid, id, next_attempt_at{bytes} FROM {messages}
      WHERE status = 'PENDING' AND next_attempt_at <= {at:now}
      ORDER BY next_attempt_at, id LIMIT :limit FOR UPDATE SKIP LOCKED
      """;

  /**
   * The window holdBehindWaitingHeads walks: of the :scan oldest due rows, those of aggregates that
   * are not parked, read without locking. The :scan rows are read first, so a parked aggregate's
   * events, however many are due, cost no more than their share of the window. OFFSET 0 keeps each
   * NOT EXISTS a correlated subplan, run per candidate: left to itself the planner may make it an
   * anti-join, and a plan cached while the table was small (a nested loop over a sequential scan)
   * costs the square of the backlog once it has grown.
   */
  private static final String WINDOW =
      """
      SELECT ctid, id, next_attempt_at, aggregate_type, aggregate_id, seq FROM (
        SELECT ctid, id, next_attempt_at, aggregate_type, aggregate_id, seq FROM {messages}
        WHERE status = 'PENDING' AND next_attempt_at <= {at:now}
        ORDER BY next_attempt_at, id LIMIT :scan) w
      WHERE NOT EXISTS (SELECT 1 FROM {parkedKeys} k
        WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id OFFSET 0)
      """;

  /**
   * The ordered claim's key walk: a loose scan of the partial key index (aggregate_type,
   * aggregate_id, seq WHERE status = 'PENDING'). Each step is one descent of the index to the first
   * entry past the previous key: that entry is the next aggregate's head, its first PENDING row in
   * seq order, however many events queue behind it. At most :keys steps, within the range {@code
   * {after}} and {@code {upTo}} bound. Then, per aggregate visited, whether its head is ready: due
   * (a leased head is due only at its lease end) and its aggregate not parked (one probe of the
   * parked keys' primary key).
   */
  private static final String WALK =
      """
      WITH RECURSIVE walk AS (
        (SELECT e.aggregate_type, e.aggregate_id, e.id, e.next_attempt_at, 1 AS n
         FROM {messages} e WHERE e.status = 'PENDING'{after}{upTo}
         ORDER BY e.aggregate_type, e.aggregate_id, e.seq LIMIT 1)
        UNION ALL
        SELECT nx.aggregate_type, nx.aggregate_id, nx.id, nx.next_attempt_at, walk.n + 1
        FROM walk CROSS JOIN LATERAL (
          SELECT e.aggregate_type, e.aggregate_id, e.id, e.next_attempt_at FROM {messages} e
          WHERE e.status = 'PENDING'
            AND (e.aggregate_type, e.aggregate_id) > (walk.aggregate_type, walk.aggregate_id){upTo}
          ORDER BY e.aggregate_type, e.aggregate_id, e.seq LIMIT 1) nx
        WHERE walk.n < :keys)
      SELECT w.aggregate_type, w.aggregate_id, CAST(w.id AS text) AS id,
        CASE WHEN w.next_attempt_at <= {at:now} AND NOT EXISTS (SELECT 1 FROM {parkedKeys} k
          WHERE k.aggregate_type = w.aggregate_type AND k.aggregate_id = w.aggregate_id)
        THEN 1 ELSE 0 END AS ready
      FROM walk w ORDER BY w.n
      """;

  private static final String AFTER =
      " AND (e.aggregate_type, e.aggregate_id) > (:afterType, :afterId)";
  private static final String UP_TO =
      " AND (e.aggregate_type, e.aggregate_id) <= (:upToType, :upToId)";

  /**
   * The ordered claim's heads, by id, locked as taken (SKIP LOCKED) and checked again as they are
   * locked: still PENDING and due (a row another claim leased meanwhile is not), and still the
   * oldest PENDING row of their aggregate (one probe of the key index each; OFFSET 0 keeps it a
   * probe per row). An earlier row that is leased, backing off or deferred is PENDING, so it holds
   * up the rows behind it.
   */
  private static final String HEADS =
      """
      SELECT m.ctid, m.id, m.next_attempt_at{bytes} FROM {messages} m
      WHERE m.id = ANY({idArray}) AND m.status = 'PENDING' AND m.next_attempt_at <= {at:now}
        AND NOT EXISTS (SELECT 1 FROM {messages} e
          WHERE e.aggregate_type = m.aggregate_type AND e.aggregate_id = m.aggregate_id
            AND e.status = 'PENDING' AND e.seq < m.seq OFFSET 0)
      ORDER BY m.next_attempt_at, m.id FOR UPDATE OF m SKIP LOCKED
      """;

  /**
   * Holding back the rows behind heads that now back off or wait for their destination: they are
   * due no earlier than their head, so that they do not crowd the front of the ordered claim's
   * window. Only that: they cannot go before their head whether they move or not, as the claim
   * takes no row with an earlier PENDING row of its aggregate, and the head is PENDING. So the rows
   * are taken SKIP LOCKED (a completion never waits for a lock here, nor fails for one), and no
   * plan can cost the square of the backlog: each head is read by its primary key (a LATERAL
   * subquery per id, its status checked outside it, so no partial index is read instead), each head
   * probes the key index for the rows behind it in key order, and the rows are updated by ctid.
   *
   * <p>At most :perHead rows move behind each head: those whose seq is within :perHead of the
   * head's, a range of the key index (a bound in the range, not a LIMIT, which let the planner sort
   * a partial index), so a completion updates a bounded number of rows whatever the aggregate's
   * size. The rows left where they were cannot go out of order: the ordered claim takes only heads.
   * docs/PERFORMANCE.md tells the plans this shape rules out.
   */
  private static final String HOLD_BEHIND =
      """
      WITH h AS (
        SELECT x.aggregate_type, x.aggregate_id, x.seq, x.next_attempt_at
        FROM json_array_elements_text(CAST(:ids AS json)) i CROSS JOIN LATERAL (
          SELECT aggregate_type, aggregate_id, seq, next_attempt_at, status FROM {messages}
          WHERE id = CAST(i.value AS uuid) OFFSET 0) x
        WHERE x.status = 'PENDING'),
      behind AS (
        SELECT b.ctid, h.next_attempt_at FROM h CROSS JOIN LATERAL (
          SELECT ctid FROM {messages} b
          WHERE b.aggregate_type = h.aggregate_type AND b.aggregate_id = h.aggregate_id
            AND b.status = 'PENDING' AND b.seq > h.seq AND b.seq <= h.seq + :perHead
            AND b.next_attempt_at < h.next_attempt_at
          ORDER BY b.seq FOR UPDATE SKIP LOCKED) b)
      UPDATE {messages} m SET next_attempt_at = behind.next_attempt_at FROM behind
      WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM behind)) AND m.ctid = behind.ctid
      """;

  /**
   * Holding back, after a short ordered claim, the rows of its window that are due before their own
   * aggregate's head while that head waits: events written after the head was held back, or behind
   * a head whose lease ran out. The window is walked as the claim walks it; each row probes the key
   * index once for its head (a LATERAL subquery per row, the first entry), and a row moves when its
   * head is due later and not under a live lease (a head in flight is published within its
   * invocation; its events stay where they are). The rows moved are locked SKIP LOCKED and updated
   * by ctid, as in HOLD_BEHIND, with no other condition that a partial index could serve: on the
   * statistics of a drained outbox the planner would read every PENDING row to find them. A row
   * published since the window was read is not found by its old ctid, or no longer visible to the
   * update: it is not moved.
   */
  private static final String HOLD_BEHIND_WAITING =
      """
      WITH c AS ({window}),
      ahead AS (
        SELECT c.ctid, h.next_attempt_at AS due FROM c CROSS JOIN LATERAL (
          SELECT e.seq, e.next_attempt_at, e.locked_until FROM {messages} e
          WHERE e.aggregate_type = c.aggregate_type AND e.aggregate_id = c.aggregate_id
            AND e.status = 'PENDING' ORDER BY e.seq LIMIT 1) h
        WHERE h.seq < c.seq AND h.next_attempt_at > c.next_attempt_at
          AND (h.locked_until IS NULL OR h.locked_until <= {at:now})),
      held AS (
        SELECT ctid FROM {messages} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ahead))
        FOR UPDATE SKIP LOCKED)
      UPDATE {messages} m SET next_attempt_at = ahead.due FROM ahead
      WHERE m.ctid = ANY(ARRAY(SELECT ctid FROM held)) AND m.ctid = ahead.ctid
      """;

  final String claimSql;
  final String claimHeadsSql;
  final KeyWalk walk;
  private final String claimSizedSql;
  private final String claimHeadsSizedSql;
  private final String claimRowSizedSql;
  private final String claimHeadsRowSizedSql;
  final String holdBehindSql;
  final String holdBehindWaitingSql;

  PostgresClaims(SqlTemplate sql) {
    String returning = PostgresSyntax.SYNTAX.selectList("m", MessageRows.COLUMNS);
    // Sized to a result budget, a payload too large for any broker comes back cut; where rows are
    // bounded, so does a row too large for one.
    String sizedReturning = ResultBudget.sizedClaimColumns(returning, "m", false);
    String rowSizedReturning = ResultBudget.sizedClaimColumns(returning, "m", true);
    String window = sql.fill(WINDOW);
    String due = sql.fill(DUE, "bytes", "");
    String dueSized = sql.fill(DUE, "bytes", ", " + ResultBudget.MESSAGE_BYTES + " AS bytes");
    String heads = sql.fill(HEADS, "idArray", PostgresSyntax.ID_ARRAY, "bytes", "");
    String headsSized =
        sql.fill(
            HEADS,
            "idArray",
            PostgresSyntax.ID_ARRAY,
            "bytes",
            ", " + ResultBudget.messageBytes("m") + " AS bytes");
    this.walk = new KeyWalk(sql, WALK, AFTER, UP_TO);
    this.claimSql = sql.fill(CLAIM, "due", due, "returning", returning);
    this.claimSizedSql = sql.fill(CLAIM_SIZED, "due", dueSized, "returning", sizedReturning);
    this.claimHeadsSql = sql.fill(CLAIM, "due", heads, "returning", returning);
    this.claimHeadsSizedSql = sql.fill(CLAIM_SIZED, "due", headsSized, "returning", sizedReturning);
    this.claimRowSizedSql = sql.fill(CLAIM_SIZED, "due", dueSized, "returning", rowSizedReturning);
    this.claimHeadsRowSizedSql =
        sql.fill(CLAIM_SIZED, "due", headsSized, "returning", rowSizedReturning);
    this.holdBehindSql = sql.fill(HOLD_BEHIND);
    this.holdBehindWaitingSql = sql.fill(HOLD_BEHIND_WAITING, "window", window);
  }

  /** The claimed rows, unread; where the session bounds a result, the sized claim's. */
  List<Row> claim(SqlSession s, String owner, int limit, Instant now, Instant leaseEnd) {
    return run(
        s,
        claimSql,
        ResultBudget.rowBounded(s) ? claimRowSizedSql : claimSizedSql,
        claimParams(owner, limit, now, leaseEnd));
  }

  /** The ordered claim's rows, unread; where the session bounds a result, the sized claim's. */
  List<Row> claimHeads(
      SqlSession s, String owner, List<String> heads, Instant now, Instant leaseEnd) {
    return run(
        s,
        claimHeadsSql,
        ResultBudget.rowBounded(s) ? claimHeadsRowSizedSql : claimHeadsSizedSql,
        headsParams(owner, heads, now, leaseEnd));
  }

  void holdBehind(SqlSession s, Collection<UUID> heads, int perHead) {
    s.update(holdBehindSql, holdBehindParams(heads, perHead));
  }

  int holdBehindWaitingHeads(SqlSession s, Instant now, int limit) {
    return s.update(holdBehindWaitingSql, windowParams(now, limit));
  }

  static Params holdBehindParams(Collection<UUID> heads, int perHead) {
    return Params.of().json("ids", JsonLists.uuids(heads)).integer("perHead", perHead);
  }

  static Params windowParams(Instant now, int limit) {
    return Params.of().timestamp("now", now).integer("scan", OutboxSql.scan(limit));
  }

  /** The ordered claim's parameters: the claim's, and the heads' ids. */
  static Params headsParams(String owner, List<String> heads, Instant now, Instant leaseEnd) {
    return Params.of()
        .timestamp("now", now)
        .timestamp("leaseEnd", leaseEnd)
        .text("owner", owner)
        .json("ids", JsonLists.texts(heads));
  }

  static Params claimParams(String owner, int limit, Instant now, Instant leaseEnd) {
    return Params.of()
        .timestamp("now", now)
        .integer("limit", limit)
        .timestamp("leaseEnd", leaseEnd)
        .text("owner", owner);
  }

  /** Runs the claim, or where the session bounds a result, its sized variant. */
  private static List<Row> run(SqlSession s, String sql, String sizedSql, Params params) {
    if (ResultBudget.unbounded(s)) {
      return s.query(sql, params);
    }
    return s.query(sizedSql, params.integer("maxBytes", ResultBudget.asParameter(s)));
  }
}
