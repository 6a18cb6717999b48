package dev.lambdaoutbox.store;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** Reads and tweaks rows behind the store's back, as an operator with psql would. */
final class TestRows {
  private static final Set<String> TIMES =
      Set.of(
          "occurred_at",
          "created_at",
          "next_attempt_at",
          "not_before",
          "locked_until",
          "first_failed_at",
          "sent_at",
          "last_failed_at",
          "dead_at");

  private final TestDatabase db;
  private final OutboxTables tables;

  TestRows(TestDatabase db, OutboxTables tables) {
    this.db = db;
    this.tables = tables;
  }

  /** The outbox row as column name -> value (times as Instant, ids as UUID), or null if absent. */
  Map<String, Object> message(UUID id) {
    return row(tables.messages(), id);
  }

  Map<String, Object> deadLetter(UUID id) {
    return row(tables.deadLetters(), id);
  }

  long count(String table, String where) {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE " + where)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  void execute(String sql) {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Empties the outbox: its rows, their idempotency keys, the dead letters. */
  void clear() {
    execute("DELETE FROM " + tables.messages());
    execute("DELETE FROM " + tables.idempotencyKeys());
    execute("DELETE FROM " + tables.deadLetters());
    execute("DELETE FROM " + tables.destinationHealth());
    execute("DELETE FROM " + tables.parkedKeys());
    resetClaimCursor();
  }

  /** Puts the ordered claim's shared cursor back before the first key, as the migration left it. */
  void resetClaimCursor() {
    execute("UPDATE " + tables.claimCursors() + " SET aggregate_type = NULL, aggregate_id = NULL");
  }

  /** When a claim last moved the ordered claim's shared cursor (its row must be there). */
  Instant claimCursorMovedAt() {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT moved_at FROM " + tables.claimCursors())) {
      if (!rs.next()) {
        throw new IllegalStateException("no row in " + tables.claimCursors());
      }
      return JdbcValues.getInstant(rs, "moved_at", db.dialect());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private Map<String, Object> row(String table, UUID id) {
    SqlDialect dialect = db.dialect();
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement("SELECT * FROM " + table + " WHERE id = ?")) {
      JdbcValues.setUuid(ps, 1, id, dialect);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        ResultSetMetaData md = rs.getMetaData();
        Map<String, Object> row = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          String column = md.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT);
          Object value;
          if (TIMES.contains(column)) {
            value = JdbcValues.getInstant(rs, column, dialect);
          } else if (column.equals("id")) {
            value = JdbcValues.getUuid(rs, column, dialect);
          } else {
            value = rs.getObject(i);
          }
          row.put(column, value);
        }
        return row;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static Instant instant(Map<String, Object> row, String column) {
    return (Instant) row.get(column);
  }
}
