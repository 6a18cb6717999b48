package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.DeliveryOutcome.Retry;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * PostgreSQL: each kind of outcome is one statement whatever the batch size. Ids and per-row values
 * travel as arrays ({@code = ANY(?)}, {@code unnest(?, ?, ...)}); a dead letter is a DELETE ...
 * RETURNING feeding the INSERT, so exactly the rows removed are the rows inserted.
 */
final class PostgresCompletionSql implements CompletionSql {
  private static final SqlDialect PG = SqlDialect.POSTGRESQL;

  private final String deleteSql;
  private final String markSentSql;
  private final String retrySql;
  private final String deadLetterSql;

  PostgresCompletionSql(OutboxTables tables) {
    String t = tables.messages();
    this.deleteSql = "DELETE FROM " + t + " WHERE id = ANY(?)";
    this.markSentSql =
        "UPDATE "
            + t
            + " SET status = 'SENT', sent_at = ?, locked_by = NULL, locked_until = NULL"
            + " WHERE id = ANY(?) AND status = 'PENDING'";
    this.retrySql =
        "UPDATE "
            + t
            + " m SET retry_count = m.retry_count + 1, next_attempt_at = r.next_attempt_at,"
            + " last_error_code = r.code, last_error_reason = r.reason,"
            + " first_failed_at = COALESCE(m.first_failed_at, ?),"
            + " locked_by = NULL, locked_until = NULL"
            + " FROM unnest(?::uuid[], ?::timestamptz[], ?::text[], ?::text[])"
            + " AS r(id, next_attempt_at, code, reason)"
            + " WHERE m.id = r.id AND m.locked_by = ? AND m.status = 'PENDING'";
    StringBuilder upsert = new StringBuilder();
    for (String column : DEAD_LETTER_COLUMNS.split(",\\s*")) {
      if (!column.equals("id")) {
        upsert
            .append(upsert.isEmpty() ? "" : ", ")
            .append(column)
            .append(" = EXCLUDED.")
            .append(column);
      }
    }
    this.deadLetterSql =
        "WITH d AS (SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[]) AS d(id, code, reason)),"
            + " gone AS (DELETE FROM "
            + t
            + " m USING d WHERE m.id = d.id AND m.locked_by = ? AND m.status = 'PENDING'"
            + " RETURNING m.*, d.code, d.reason)"
            + " INSERT INTO "
            + tables.deadLetters()
            + " ("
            + DEAD_LETTER_COLUMNS
            + ") SELECT "
            + CARRIED
            + ", retry_count + 1, replay_count, code, reason, COALESCE(first_failed_at, ?), ?, ?"
            + " FROM gone ON CONFLICT (id) DO UPDATE SET "
            + upsert;
  }

  @Override
  public int published(Connection c, List<UUID> ids, Instant now, boolean retain)
      throws SQLException {
    Array idArray = c.createArrayOf("uuid", ids.toArray());
    try (PreparedStatement ps = c.prepareStatement(retain ? markSentSql : deleteSql)) {
      if (retain) {
        JdbcValues.setInstant(ps, 1, now, PG);
        ps.setArray(2, idArray);
      } else {
        ps.setArray(1, idArray);
      }
      return ps.executeUpdate();
    } finally {
      idArray.free();
    }
  }

  @Override
  public int retried(Connection c, String owner, List<Retry> retries, Instant now)
      throws SQLException {
    int n = retries.size();
    Object[] ids = new Object[n];
    Object[] due = new Object[n];
    Object[] codes = new Object[n];
    Object[] reasons = new Object[n];
    for (int i = 0; i < n; i++) {
      Retry r = retries.get(i);
      ids[i] = r.id();
      due[i] = r.nextAttemptAt().toString(); // ISO-8601 UTC, cast to timestamptz by the SQL
      codes[i] = ErrorText.code(r.errorCode());
      reasons[i] = ErrorText.reason(r.reason());
    }
    try (PreparedStatement ps = c.prepareStatement(retrySql)) {
      JdbcValues.setInstant(ps, 1, now, PG);
      ps.setArray(2, c.createArrayOf("uuid", ids));
      ps.setArray(3, c.createArrayOf("text", due));
      ps.setArray(4, c.createArrayOf("text", codes));
      ps.setArray(5, c.createArrayOf("text", reasons));
      ps.setString(6, owner);
      return ps.executeUpdate();
    }
  }

  @Override
  public int deadLettered(Connection c, String owner, List<DeadLetter> deadLetters, Instant now)
      throws SQLException {
    int n = deadLetters.size();
    Object[] ids = new Object[n];
    Object[] codes = new Object[n];
    Object[] reasons = new Object[n];
    for (int i = 0; i < n; i++) {
      DeadLetter d = deadLetters.get(i);
      ids[i] = d.id();
      codes[i] = ErrorText.requiredCode(d.errorCode());
      reasons[i] = ErrorText.reason(d.reason());
    }
    try (PreparedStatement ps = c.prepareStatement(deadLetterSql)) {
      ps.setArray(1, c.createArrayOf("uuid", ids));
      ps.setArray(2, c.createArrayOf("text", codes));
      ps.setArray(3, c.createArrayOf("text", reasons));
      ps.setString(4, owner);
      JdbcValues.setInstant(ps, 5, now, PG);
      JdbcValues.setInstant(ps, 6, now, PG);
      JdbcValues.setInstant(ps, 7, now, PG);
      return ps.executeUpdate();
    }
  }
}
