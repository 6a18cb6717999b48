package dev.lambdaoutbox.store.jdbc.internal;

import dev.lambdaoutbox.store.DeliveryOutcome.DeadLetter;
import dev.lambdaoutbox.store.DeliveryOutcome.Retry;
import dev.lambdaoutbox.writer.OutboxTables;
import dev.lambdaoutbox.writer.SqlDialect;
import dev.lambdaoutbox.writer.internal.JdbcValues;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * MySQL/MariaDB: published rows by IN lists of up to {@link SqlLists#MAX_IN} ids; retries and dead
 * letters, which carry values per row, as JDBC batches of one prepared statement. A dead letter
 * first locks the rows {@code owner} still holds, so that the INSERT ... SELECT and the DELETE see
 * the same rows.
 */
final class MysqlCompletionSql implements CompletionSql {
  private static final SqlDialect MY = SqlDialect.MYSQL;

  private final String table;
  private final String retrySql;
  private final String deadLetterSql;

  MysqlCompletionSql(OutboxTables tables) {
    this.table = tables.messages();
    this.retrySql =
        "UPDATE "
            + table
            + " SET retry_count = retry_count + 1, next_attempt_at = ?,"
            + " last_error_code = ?, last_error_reason = ?,"
            + " first_failed_at = COALESCE(first_failed_at, ?),"
            + " locked_by = NULL, locked_until = NULL"
            + " WHERE id = ? AND locked_by = ? AND status = 'PENDING'";
    StringBuilder upsert = new StringBuilder();
    for (String column : DEAD_LETTER_COLUMNS.split(",\\s*")) {
      if (!column.equals("id")) {
        upsert.append(upsert.isEmpty() ? "" : ", ");
        upsert.append(column).append(" = VALUES(").append(column).append(')');
      }
    }
    this.deadLetterSql =
        "INSERT INTO "
            + tables.deadLetters()
            + " ("
            + DEAD_LETTER_COLUMNS
            + ") SELECT "
            + CARRIED
            + ", retry_count + 1, replay_count, ?, ?, COALESCE(first_failed_at, ?), ?, ? FROM "
            + table
            + " WHERE id = ? ON DUPLICATE KEY UPDATE "
            + upsert;
  }

  @Override
  public int published(Connection c, List<UUID> ids, Instant now, boolean retain)
      throws SQLException {
    int changed = 0;
    for (List<UUID> chunk : SqlLists.chunks(ids)) {
      String in = SqlLists.placeholders(chunk.size());
      String sql =
          retain
              ? "UPDATE "
                  + table
                  + " SET status = 'SENT', sent_at = ?, locked_by = NULL, locked_until = NULL"
                  + " WHERE status = 'PENDING' AND id IN "
                  + in
              : "DELETE FROM " + table + " WHERE id IN " + in;
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        int next = 1;
        if (retain) {
          JdbcValues.setInstant(ps, next++, now, MY);
        }
        SqlLists.bindIds(ps, next, chunk);
        changed += ps.executeUpdate();
      }
    }
    return changed;
  }

  @Override
  public int retried(Connection c, String owner, List<Retry> retries, Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(retrySql)) {
      for (Retry r : retries) {
        JdbcValues.setInstant(ps, 1, r.nextAttemptAt(), MY);
        ps.setString(2, ErrorText.code(r.errorCode()));
        ps.setString(3, ErrorText.reason(r.reason()));
        JdbcValues.setInstant(ps, 4, now, MY);
        JdbcValues.setUuid(ps, 5, r.id(), MY);
        ps.setString(6, owner);
        ps.addBatch();
      }
      return sum(ps.executeBatch());
    }
  }

  @Override
  public int deadLettered(Connection c, String owner, List<DeadLetter> deadLetters, Instant now)
      throws SQLException {
    List<UUID> owned = lockOwned(c, owner, deadLetters.stream().map(DeadLetter::id).toList());
    if (owned.isEmpty()) {
      return 0;
    }
    Set<UUID> ownedSet = new HashSet<>(owned);
    try (PreparedStatement ps = c.prepareStatement(deadLetterSql)) {
      for (DeadLetter d : deadLetters) {
        if (ownedSet.contains(d.id())) {
          ps.setString(1, ErrorText.requiredCode(d.errorCode()));
          ps.setString(2, ErrorText.reason(d.reason()));
          JdbcValues.setInstant(ps, 3, now, MY);
          JdbcValues.setInstant(ps, 4, now, MY);
          JdbcValues.setInstant(ps, 5, now, MY);
          JdbcValues.setUuid(ps, 6, d.id(), MY);
          ps.addBatch();
        }
      }
      ps.executeBatch();
    }
    return published(c, owned, now, false);
  }

  /** Locks the rows of {@code ids} that {@code owner} still holds, and returns their ids. */
  private List<UUID> lockOwned(Connection c, String owner, List<UUID> ids) throws SQLException {
    List<UUID> owned = new ArrayList<>(ids.size());
    for (List<UUID> chunk : SqlLists.chunks(ids)) {
      String sql =
          "SELECT id FROM "
              + table
              + " WHERE locked_by = ? AND status = 'PENDING' AND id IN "
              + SqlLists.placeholders(chunk.size())
              + " FOR UPDATE";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, owner);
        SqlLists.bindIds(ps, 2, chunk);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            owned.add(JdbcValues.getUuid(rs, "id", MY));
          }
        }
      }
    }
    return owned;
  }

  private static int sum(int[] counts) {
    int total = 0;
    for (int n : counts) {
      // SUCCESS_NO_INFO (-2) would hide the count; Connector/J reports real counts for this batch.
      total += n == Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, n);
    }
    return total;
  }
}
