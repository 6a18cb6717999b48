package dev.lambdaoutbox.store.internal.dialect.postgres;

import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.dialect.portable.KeyWalk;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableClaimCursors;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.JsonLists;
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
 * returns them in order. The ordered claim first walks the key index for the heads. The statements
 * are in {@link PostgresClaimSql}; this runs them, sized to the session's result budget.
 */
final class PostgresClaims {
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
    this.walk =
        new KeyWalk(
            sql, PostgresClaimSql.WALK, PostgresClaimSql.WALK_AFTER, PostgresClaimSql.WALK_UP_TO);
    this.claimSql = sql.fill(PostgresClaimSql.CLAIM);
    this.claimSizedSql = sql.fill(PostgresClaimSql.CLAIM_SIZED);
    this.claimHeadsSql = sql.fill(PostgresClaimSql.HEADS_CLAIM);
    this.claimHeadsSizedSql = sql.fill(PostgresClaimSql.HEADS_CLAIM_SIZED);
    this.claimRowSizedSql = sql.fill(PostgresClaimSql.CLAIM_ROW_SIZED);
    this.claimHeadsRowSizedSql = sql.fill(PostgresClaimSql.HEADS_CLAIM_ROW_SIZED);
    this.holdBehindSql = sql.fill(PostgresClaimSql.HOLD_BEHIND);
    this.holdBehindWaitingSql = sql.fill(PostgresClaimSql.HOLD_BEHIND_WAITING);
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

  /** The ordered claim's shared cursor, run with the statements of {@link PostgresClaimSql}. */
  static PortableClaimCursors cursors(SqlTemplate sql) {
    return new PortableClaimCursors(
        sql.fill(PostgresClaimSql.CURSOR_READ),
        sql.fill(PostgresClaimSql.CURSOR_LOCK),
        sql.fill(PostgresClaimSql.CURSOR_MOVE),
        sql.fill(PostgresClaimSql.CURSOR_INSERT));
  }
}
