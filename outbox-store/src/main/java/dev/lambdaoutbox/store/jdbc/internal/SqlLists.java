package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/** IN lists for MySQL, where there are no arrays to bind. */
public final class SqlLists {
  /** Ids per IN list: keeps statements short and far below every bind-parameter limit. */
  public static final int MAX_IN = 1000;

  private SqlLists() {}

  /** {@code (?, ?, ?)} for {@code n} values. */
  public static String placeholders(int n) {
    StringBuilder sb = new StringBuilder(3 * n + 2).append('(');
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "?" : ", ?");
    }
    return sb.append(')').toString();
  }

  /**
   * Binds {@code ids} as MySQL uuids (char(36)) from parameter {@code first} on; returns the next.
   */
  public static int bindIds(PreparedStatement ps, int first, Collection<UUID> ids)
      throws SQLException {
    int i = first;
    for (UUID id : ids) {
      JdbcValues.setUuid(ps, i++, id, SqlDialect.MYSQL);
    }
    return i;
  }

  /** {@code ids} cut into lists of at most {@link #MAX_IN}. */
  public static List<List<UUID>> chunks(List<UUID> ids) {
    List<List<UUID>> chunks = new ArrayList<>();
    for (int from = 0; from < ids.size(); from += MAX_IN) {
      chunks.add(ids.subList(from, Math.min(ids.size(), from + MAX_IN)));
    }
    return chunks;
  }
}
