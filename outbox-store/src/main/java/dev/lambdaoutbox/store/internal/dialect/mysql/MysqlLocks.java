package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * What MySQL does instead of UPDATE ... RETURNING and DELETE ... RETURNING: lock the rows first, so
 * that the ids a change applies to are known exactly, then change them by id. Id lists are {@code
 * IN} lists of generated parameters, at most {@link InLists#MAX} each.
 */
final class MysqlLocks {
  private final SqlTemplate sql;

  MysqlLocks(SqlTemplate sql) {
    this.sql = sql;
  }

  /**
   * Locks the PENDING rows of {@code ids} ({@code owner} not null: that it still holds) and returns
   * their ids.
   */
  Set<UUID> lockPending(SqlSession s, String owner, List<UUID> ids) {
    Set<UUID> locked = new HashSet<>();
    for (List<UUID> chunk : InLists.chunks(ids)) {
      Params params = Params.of();
      String select = lockPendingSql("id", owner, InLists.uuids("id", chunk, params), params);
      for (Row row : s.query(select, params)) {
        locked.add(row.uuid("id"));
      }
    }
    return locked;
  }

  /**
   * {@code SELECT columns} of the PENDING rows whose id is in {@code idList} (an IN list whose
   * values are in {@code params}), locked; with an {@code owner} (added to {@code params}), only
   * those it still holds.
   */
  String lockPendingSql(String columns, String owner, String idList, Params params) {
    String held = "";
    if (owner != null) {
      params.text("owner", owner);
      held = "locked_by = :owner AND ";
    }
    return sql.fill(
        "SELECT {columns} FROM {messages} WHERE {held}status = 'PENDING' AND id IN {ids} FOR UPDATE",
        "columns",
        columns,
        "held",
        held,
        "ids",
        idList);
  }

  /** Deletes the rows of {@code table} whose {@code column} is one of {@code values}. */
  static int deleteBy(SqlSession s, String table, String column, List<String> values) {
    int deleted = 0;
    for (List<String> chunk : InLists.chunks(values)) {
      Params params = Params.of();
      deleted +=
          s.update(
              "DELETE FROM "
                  + table
                  + " WHERE "
                  + column
                  + " IN "
                  + InLists.texts("v", chunk, params),
              params);
    }
    return deleted;
  }
}
