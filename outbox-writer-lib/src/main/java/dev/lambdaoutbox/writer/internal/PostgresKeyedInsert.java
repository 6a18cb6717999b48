package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.PermissionDenied;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * PostgreSQL: the keys and the events of a chunk in one statement, so a keyed append costs the same
 * round trips as a keyless one.
 *
 * <pre>{@code
 * WITH k AS (INSERT INTO keys ... ON CONFLICT DO NOTHING RETURNING 1),
 *      m AS (INSERT INTO messages ... SELECT ... WHERE (SELECT count(*) FROM k) = <keys>
 *            ON CONFLICT (idempotency_key) ... DO NOTHING RETURNING 1)
 * SELECT (SELECT count(*) FROM k), (SELECT count(*) FROM m)
 * }</pre>
 *
 * <p>The events go in only if every key did. A key held by another transaction that has not
 * committed yet makes the statement wait for it: skipped once it commits, written if it rolls back.
 * No error is raised for a taken key, so the caller's transaction is never aborted by one.
 */
public final class PostgresKeyedInsert {
  private PostgresKeyedInsert() {}

  public static String sql(OutboxTables tables, int events, int keys, Stamp stamp, boolean timed) {
    return "WITH k AS ("
        + IdempotencyKeyRows.insertSql(tables, keys, SqlDialect.POSTGRESQL, stamp)
        + " ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1), m AS (INSERT INTO "
        + tables.messages()
        + " ("
        + OutboxInsert.COLUMNS
        + ") SELECT * FROM (VALUES "
        + OutboxInsert.values(events, SqlDialect.POSTGRESQL, stamp, timed)
        + ") AS e WHERE (SELECT count(*) FROM k) = "
        + keys
        + OutboxInsert.SKIP_TAKEN_KEY
        + " RETURNING 1) SELECT (SELECT count(*) FROM k), (SELECT count(*) FROM m)";
  }

  /** Writes {@code chunk}, of which {@code keyed} are the events with a key (at least one). */
  public static ChunkOutcome insert(
      Connection connection,
      OutboxTables tables,
      List<OutboxEvent> chunk,
      List<OutboxEvent> keyed,
      Stamp stamp)
      throws SQLException {
    long keysWritten;
    long eventsWritten;
    String sql = sql(tables, chunk.size(), keyed.size(), stamp, OutboxInsert.timed(chunk));
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      int next = IdempotencyKeyRows.bind(ps, 1, keyed, stamp, SqlDialect.POSTGRESQL);
      OutboxInsert.bind(ps, next, chunk, stamp, SqlDialect.POSTGRESQL);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        keysWritten = rs.getLong(1);
        eventsWritten = rs.getLong(2);
      }
    } catch (SQLException e) {
      throw PermissionDenied.explained(e, sql);
    }
    List<String> keys = keyed.stream().map(e -> e.idempotencyKey().orElseThrow()).toList();
    if (keysWritten < keyed.size()) {
      return ChunkOutcome.refused(ChunkOutcome.HeldIn.KEY_TABLE, keys, keysWritten > 0);
    }
    if (eventsWritten < chunk.size()) {
      return ChunkOutcome.refused(ChunkOutcome.HeldIn.OUTBOX_ROW, keys, true);
    }
    return ChunkOutcome.written();
  }
}
