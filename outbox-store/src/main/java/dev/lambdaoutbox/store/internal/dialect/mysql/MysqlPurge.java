package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.util.ArrayList;
import java.util.List;

/**
 * How MySQL purges: a locking SELECT takes the expired rows, skipping those another purge holds,
 * along the time index; the DELETE then goes by primary key. (A DELETE ... ORDER BY ... LIMIT
 * cannot skip locked rows: concurrent purges would wait for, or deadlock with, each other.)
 */
final class MysqlPurge {
  /** Up to :limit rows kept as SENT that were sent before :cutoff, oldest first, locked. */
  final String lockSent;

  /** Up to :limit idempotency keys first seen before :cutoff, oldest first, locked. */
  final String lockKeys;

  private final OutboxTables tables;

  MysqlPurge(SqlTemplate sql, OutboxTables tables) {
    this.tables = tables;
    this.lockSent =
        sql.fill(
            """
            SELECT id FROM {messages} WHERE status = 'SENT' AND sent_at < :cutoff
            ORDER BY sent_at LIMIT :limit FOR UPDATE SKIP LOCKED
            """);
    this.lockKeys =
        sql.fill(
            """
            SELECT idempotency_key FROM {idempotencyKeys} WHERE first_seen_at < :cutoff
            ORDER BY first_seen_at LIMIT :limit FOR UPDATE SKIP LOCKED
            """);
  }

  int purgeSent(SqlSession s, Params params) {
    return MysqlLocks.deleteBy(s, tables.messages(), "id", lock(s, lockSent, "id", params));
  }

  int purgeIdempotencyKeys(SqlSession s, Params params) {
    List<String> keys = lock(s, lockKeys, "idempotency_key", params);
    return MysqlLocks.deleteBy(s, tables.idempotencyKeys(), "idempotency_key", keys);
  }

  /** Runs a purge's locking SELECT; returns the {@code column} of each row it locked. */
  private static List<String> lock(SqlSession s, String sql, String column, Params params) {
    List<String> locked = new ArrayList<>();
    for (Row row : s.query(sql, params)) {
      locked.add(row.text(column));
    }
    return locked;
  }
}
