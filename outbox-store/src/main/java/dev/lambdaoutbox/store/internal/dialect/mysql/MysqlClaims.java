package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.store.internal.dialect.OutboxSql;
import dev.lambdaoutbox.store.internal.dialect.portable.PortableClaimCursors;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.InLists;
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
 * How MySQL claims rows, and holds back the rows behind an ordered claim's waiting heads: the
 * statements of {@link MysqlClaimSql} run in turn, id lists appended, sized to the session's result
 * budget. There is no UPDATE ... RETURNING: a claim locks its rows with a SELECT first, then leases
 * them by id (see {@link MysqlSql#claim}).
 */
final class MysqlClaims {
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
    this.claimSql = sql.fill(MysqlClaimSql.CLAIM);
    this.claimHeadsSql = sql.fill(MysqlClaimSql.HEADS);
    this.walk = new MysqlKeyWalk(sql);
    this.claimSizesSql = sql.fill(MysqlClaimSql.CLAIM_SIZES);
    this.claimHeadsSizesSql = sql.fill(MysqlClaimSql.HEADS_SIZES);
    this.claimedRows = sql.fill(MysqlClaimSql.CLAIMED_ROWS);
    this.claimedRowsBounded = sql.fill(MysqlClaimSql.CLAIMED_ROWS_BOUNDED);
    this.lease = sql.fill(MysqlClaimSql.LEASE);
    this.holdBehind = sql.fill(MysqlClaimSql.HOLD_BEHIND);
    this.holdBehindWaitingSql = sql.fill(MysqlClaimSql.HOLD_BEHIND_WAITING);
    this.moveBehind = sql.fill(MysqlClaimSql.MOVE_BEHIND);
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
      String ids = InLists.texts("id", chunk, params) + MysqlClaimSql.HEADS_END;
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
    return claimHeadsSql + " " + InLists.texts("id", heads, params) + MysqlClaimSql.HEADS_END;
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

  /** The ordered claim's shared cursor, run with the statements of {@link MysqlClaimSql}. */
  static PortableClaimCursors cursors(SqlTemplate sql) {
    return new PortableClaimCursors(
        sql.fill(MysqlClaimSql.CURSOR_READ),
        sql.fill(MysqlClaimSql.CURSOR_LOCK),
        sql.fill(MysqlClaimSql.CURSOR_MOVE),
        sql.fill(MysqlClaimSql.CURSOR_INSERT));
  }
}
