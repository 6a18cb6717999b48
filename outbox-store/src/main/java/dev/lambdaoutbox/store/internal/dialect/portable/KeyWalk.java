package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The ordered claim's key walk as each dialect writes it ({@code
 * dev.lambdaoutbox.store.internal.dialect.OutboxSql#walkKeys}): its statement in four variants, by
 * whether the range has a lower bound ({@code {after}}: {@code :afterType}, {@code :afterId},
 * exclusive) and an upper one ({@code {upTo}}: {@code :upToType}, {@code :upToId}, inclusive), its
 * parameters ({@code :keys}, {@code :now}), and its rows ({@code aggregate_type}, {@code
 * aggregate_id}, {@code id}, {@code ready} 1 or 0) read into {@link KeyHead}s.
 */
public final class KeyWalk {
  private final String[] statements = new String[4];

  /**
   * {@code walk} with {@code after} and {@code upTo} as its bounds' conditions, where present, and
   * its other {@code fragments} (name, value, name, value...).
   */
  public KeyWalk(SqlTemplate sql, String walk, String after, String upTo, Object... fragments) {
    for (int range = 0; range < 4; range++) {
      Object[] all = Arrays.copyOf(fragments, fragments.length + 4);
      all[fragments.length] = "after";
      all[fragments.length + 1] = (range & 1) != 0 ? after : "";
      all[fragments.length + 2] = "upTo";
      all[fragments.length + 3] = (range & 2) != 0 ? upTo : "";
      statements[range] = sql.fill(walk, all);
    }
  }

  /** The aggregates visited, in key order. */
  public List<KeyHead> run(
      SqlSession s, KeyHead.Key after, KeyHead.Key upTo, int keys, Instant now) {
    List<KeyHead> visited = new ArrayList<>();
    for (Row row : s.query(sql(after, upTo), params(after, upTo, keys, now))) {
      visited.add(
          new KeyHead(
              new KeyHead.Key(row.text("aggregate_type"), row.text("aggregate_id")),
              row.text("id"),
              row.integer("ready") == 1));
    }
    return visited;
  }

  /** The statement for the range {@code after} and {@code upTo} bound (null: unbounded). */
  public String sql(KeyHead.Key after, KeyHead.Key upTo) {
    return statements[(after == null ? 0 : 1) | (upTo == null ? 0 : 2)];
  }

  /** The parameters: the range's bounds, the keys to visit, the time. */
  public static Params params(KeyHead.Key after, KeyHead.Key upTo, int keys, Instant now) {
    Params params = Params.of().timestamp("now", now).integer("keys", keys);
    if (after != null) {
      params.text("afterType", after.aggregateType()).text("afterId", after.aggregateId());
    }
    if (upTo != null) {
      params.text("upToType", upTo.aggregateType()).text("upToId", upTo.aggregateId());
    }
    return params;
  }
}
