package dev.lambdaoutbox.store.internal.dialect.mysql;

import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.internal.dialect.portable.KeyWalk;
import dev.lambdaoutbox.store.internal.dialect.portable.SqlTemplate;
import dev.lambdaoutbox.store.internal.rows.InLists;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How MySQL walks the ordered claim's keys ({@code OutboxSql#walkKeys}): along the PENDING part of
 * the pending key index (status, aggregate_type, aggregate_id, seq) in order, in two statements per
 * step ({@link MysqlClaimSql#WALK_ENTRIES}, {@link MysqlClaimSql#WALK_HEADS}). MySQL has no partial
 * index, so the key index (aggregate_type, aggregate_id, status, seq) holds every sent (retained)
 * row too, and a walk along it stepped over every aggregate that had only sent rows left, most of
 * them where rows are retained; this one leads with status, and its PENDING part holds the pending
 * rows alone. ENTRIES reads the next :keys PENDING entries after the last key visited, a range read
 * in index order from ('PENDING', after) that stops at its LIMIT; every aggregate it reaches starts
 * in it (the read starts past the previous one), and its first entry is its head. The next step
 * starts past the last aggregate reached, one index descent however many events it holds. HEADS
 * then reads those heads by seq (unique), with whether each is ready. A range read in index order
 * with a LIMIT has one plan and reads at most :keys entries (not a GROUP BY loose index scan:
 * docs/PERFORMANCE.md says why).
 */
final class MysqlKeyWalk {
  private final KeyWalk entries;
  private final String heads;

  MysqlKeyWalk(SqlTemplate sql) {
    this.entries =
        new KeyWalk(
            sql, MysqlClaimSql.WALK_ENTRIES, MysqlClaimSql.WALK_AFTER, MysqlClaimSql.WALK_UP_TO);
    this.heads = sql.fill(MysqlClaimSql.WALK_HEADS);
  }

  /**
   * The next {@code keys} aggregates after {@code after} and up to {@code upTo} (null: unbounded),
   * in key order; fewer only where the range ended.
   */
  List<KeyHead> run(SqlSession s, KeyHead.Key after, KeyHead.Key upTo, int keys, Instant now) {
    List<KeyHead.Key> visited = new ArrayList<>();
    Map<KeyHead.Key, Long> headSeqs = new HashMap<>();
    KeyHead.Key from = after;
    while (visited.size() < keys) {
      List<Row> rows = s.query(entries.sql(from, upTo), KeyWalk.params(from, upTo, keys, now));
      for (Row row : rows) {
        KeyHead.Key key = new KeyHead.Key(row.text("aggregate_type"), row.text("aggregate_id"));
        if (!key.equals(from) && visited.size() < keys) {
          visited.add(key);
          headSeqs.put(key, row.longValue("seq"));
          from = key;
        }
      }
      if (rows.size() < keys) {
        break; // the range ended
      }
    }
    Map<Long, Row> ready = readHeads(s, List.copyOf(headSeqs.values()), now);
    List<KeyHead> walked = new ArrayList<>(visited.size());
    for (KeyHead.Key key : visited) {
      Row head = ready.get(headSeqs.get(key));
      walked.add(
          head == null
              ? new KeyHead(key, null, false)
              : new KeyHead(key, head.text("id"), head.integer("ready") == 1));
    }
    return walked;
  }

  private Map<Long, Row> readHeads(SqlSession s, List<Long> seqs, Instant now) {
    Map<Long, Row> bySeq = new HashMap<>();
    for (List<Long> chunk : InLists.chunks(seqs)) {
      Params params = Params.of().timestamp("now", now);
      for (Row row : s.query(heads + " " + InLists.longs("seq", chunk, params), params)) {
        bySeq.put(row.longValue("seq"), row);
      }
    }
    return bySeq;
  }

  /** The entries statement for the range {@code after} and {@code upTo} bound (null: unbounded). */
  String entriesSql(KeyHead.Key after, KeyHead.Key upTo) {
    return entries.sql(after, upTo);
  }

  /** The heads statement for {@code seqs}, with its parameters in {@code params}. */
  String headsSql(List<Long> seqs, Params params) {
    return heads + " " + InLists.longs("seq", seqs, params);
  }
}
