package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.sql.DuplicateKeyException;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;

/**
 * Runs the ordered claim's shared cursor ({@code outbox_claim_cursors}, migration V9): where the
 * walk of the aggregates stands, one row per cursor, read by its primary key (with or without
 * locking it) and moved by one {@code UPDATE} of it; a row deleted by hand is inserted again, kept
 * as it is where another claim inserted it first. The statements are the dialect's, in its claim
 * file.
 */
public final class PortableClaimCursors {
  private final String read;
  private final String lock;
  private final String move;
  private final String insert;

  /** The dialect's statements, filled by {@link SqlTemplate#fill}. */
  public PortableClaimCursors(String read, String lock, String move, String insert) {
    this.read = read;
    this.lock = lock;
    this.move = move;
    this.insert = insert;
  }

  /**
   * The key cursor {@code name} stands at; null where it stands before the first key, or where its
   * row is missing or holds half a key (both columns are needed to walk from it).
   */
  public KeyHead.Key read(SqlSession s, String name) {
    return key(s.query(read, Params.of().text("name", name)));
  }

  /**
   * As {@link #read}, and locks the row until the transaction ends (a missing row locks nothing).
   */
  public KeyHead.Key lock(SqlSession s, String name) {
    return key(s.query(lock, Params.of().text("name", name)));
  }

  private static KeyHead.Key key(List<Row> rows) {
    if (rows.isEmpty()) {
      return null;
    }
    String type = rows.get(0).text("aggregate_type");
    String id = rows.get(0).text("aggregate_id");
    return type == null || id == null ? null : new KeyHead.Key(type, id);
  }

  /**
   * Moves cursor {@code name} to {@code key} (null: before the first key); a row deleted by hand is
   * inserted again. Where another claim inserted it first, its row is kept: PostgreSQL's insert
   * says {@code ON CONFLICT DO NOTHING}, and MySQL refuses the second row with a duplicate-key
   * error, which leaves the transaction usable.
   */
  public void move(SqlSession s, String name, KeyHead.Key key, Instant now) {
    Params params = params(name, key, now);
    if (s.update(move, params) == 1) {
      return;
    }
    try {
      s.update(insert, params);
    } catch (DuplicateKeyException e) {
      // Another claim recreated the row first: it moves on from there.
    }
  }

  /** The parameters of the move and the insert. */
  private static Params params(String name, KeyHead.Key key, Instant now) {
    return Params.of()
        .text("name", name)
        .text("type", key == null ? null : key.aggregateType())
        .text("id", key == null ? null : key.aggregateId())
        .timestamp("now", now);
  }
}
