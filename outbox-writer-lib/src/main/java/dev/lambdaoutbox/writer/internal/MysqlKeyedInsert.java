package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * MySQL and MariaDB: the keys of a chunk, then its events, in two statements (MySQL has no
 * data-modifying CTE). A failed statement is undone on its own and leaves the transaction usable. A
 * key held by another transaction that has not committed yet makes the key INSERT wait for it:
 * refused once it commits, written if it rolls back.
 */
public final class MysqlKeyedInsert {
  private static final int DUPLICATE_KEY = 1062;

  private MysqlKeyedInsert() {}

  /** Writes {@code chunk}, of which {@code keyed} are the events with a key (at least one). */
  public static ChunkOutcome insert(
      Connection connection,
      OutboxTables tables,
      List<OutboxEvent> chunk,
      List<OutboxEvent> keyed,
      Stamp stamp)
      throws SQLException {
    List<String> keys = keyed.stream().map(e -> e.idempotencyKey().orElseThrow()).toList();
    String keySql = IdempotencyKeyRows.insertSql(tables, keyed.size(), SqlDialect.MYSQL, stamp);
    try (PreparedStatement ps = connection.prepareStatement(keySql)) {
      IdempotencyKeyRows.bind(ps, 1, keyed, stamp, SqlDialect.MYSQL);
      ps.executeUpdate();
    } catch (SQLException e) {
      if (e.getErrorCode() == DUPLICATE_KEY) {
        // The key table has no unique index but its primary key.
        return ChunkOutcome.refused(
            ChunkOutcome.HeldIn.KEY_TABLE, keysNamedIn(e.getMessage(), keys), false);
      }
      throw PermissionDenied.explained(e, keySql);
    }
    String eventSql =
        OutboxInsert.sql(tables, SqlDialect.MYSQL, chunk.size(), stamp, OutboxInsert.timed(chunk));
    try (PreparedStatement ps = connection.prepareStatement(eventSql)) {
      OutboxInsert.bind(ps, chunk, stamp, SqlDialect.MYSQL);
      ps.executeUpdate();
    } catch (SQLException e) {
      if (e.getErrorCode() == DUPLICATE_KEY
          && String.valueOf(e.getMessage()).contains("_idem_uq")) {
        return ChunkOutcome.refused(
            ChunkOutcome.HeldIn.OUTBOX_ROW, keysNamedIn(e.getMessage(), keys), true);
      }
      // Any other failure: the keys must not stay taken by events that were not written.
      try {
        IdempotencyKeyRows.takeBack(connection, tables, keys);
      } catch (SQLException undo) {
        e.addSuppressed(undo);
      }
      throw PermissionDenied.explained(e, eventSql);
    }
    return ChunkOutcome.written();
  }

  /**
   * The {@code keys} that MySQL's "Duplicate entry 'KEY' for key '...'" message may mean: the one
   * it quotes, or, as servers quote at most 64 characters (MariaDB then adds "..."), those starting
   * with the quoted text; all of them when the message quotes none.
   */
  static List<String> keysNamedIn(String message, List<String> keys) {
    String marker = "Duplicate entry '";
    int start = message == null ? -1 : message.indexOf(marker);
    int end = message == null ? -1 : message.lastIndexOf("' for key");
    if (start < 0 || end < start + marker.length()) {
      return keys;
    }
    String entry = message.substring(start + marker.length(), end);
    if (keys.contains(entry)) {
      return List.of(entry);
    }
    String quoted = entry.endsWith("...") ? entry.substring(0, entry.length() - 3) : entry;
    List<String> candidates = keys.stream().filter(k -> k.startsWith(quoted)).toList();
    return candidates.isEmpty() ? keys : candidates;
  }
}
