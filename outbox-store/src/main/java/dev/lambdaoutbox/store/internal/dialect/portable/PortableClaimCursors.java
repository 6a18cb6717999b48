package dev.lambdaoutbox.store.internal.dialect.portable;

import dev.lambdaoutbox.store.internal.dialect.KeyHead;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.Row;
import dev.lambdaoutbox.store.sql.SqlSession;
import java.time.Instant;
import java.util.List;

/**
 * The ordered claim's shared cursor ({@code outbox_claim_cursors}, migration V9): where the walk of
 * the aggregates stands, one row per cursor, read by its primary key (with or without locking it)
 * and moved by one {@code UPDATE} of it. A row deleted by hand is inserted again by the dialect
 * ({@link #insert}, kept as it is where another claim inserted it first).
 */
public final class PortableClaimCursors {
  private final String read;
  private final String lock;
  private final String move;
  private final String insert;

  public PortableClaimCursors(SqlTemplate sql) {
    this.read =
        sql.fill(
            """
            SELECT aggregate_type, aggregate_id FROM {claimCursors} WHERE cursor_name = :name
            """);
    this.lock = read.strip() + " FOR UPDATE";
    this.move =
        sql.fill(
            """
            UPDATE {claimCursors} SET aggregate_type = :type, aggregate_id = :id, moved_at = {at:now}
            WHERE cursor_name = :name
            """);
    this.insert =
        sql.fill(
            """
            INSERT INTO {claimCursors} (cursor_name, aggregate_type, aggregate_id, moved_at)
            VALUES (:name, :type, :id, {at:now})
            """);
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
   * Moves cursor {@code name} to {@code key} (null: before the first key); returns whether its row
   * was there to move.
   */
  public boolean move(SqlSession s, String name, KeyHead.Key key, Instant now) {
    return s.update(move, params(name, key, now)) == 1;
  }

  /**
   * The plain INSERT of a cursor's row, which each dialect completes to keep a row already there.
   */
  public String insert() {
    return insert;
  }

  /** The parameters of {@link #move} and {@link #insert}. */
  public static Params params(String name, KeyHead.Key key, Instant now) {
    return Params.of()
        .text("name", name)
        .text("type", key == null ? null : key.aggregateType())
        .text("id", key == null ? null : key.aggregateId())
        .timestamp("now", now);
  }
}
