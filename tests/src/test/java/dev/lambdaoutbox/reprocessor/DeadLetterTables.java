package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Direct SQL on one set of test tables: seeds dead letters and outbox rows, and reads back what the
 * tests assert on, without going through the code under test.
 */
final class DeadLetterTables {
  private final TestDatabase db;
  private final OutboxTables tables;
  private final SqlDialect dialect;

  DeadLetterTables(TestDatabase db, OutboxTables tables) {
    this.db = db;
    this.tables = tables;
    this.dialect = db.dialect();
  }

  OutboxTables tables() {
    return tables;
  }

  /** Deletes every row of every table but the schema history. */
  void empty() {
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      for (String table :
          List.of(
              tables.messages(),
              tables.deadLetters(),
              tables.deadLetterAudit(),
              tables.destinationHealth(),
              tables.parkedKeys(),
              tables.idempotencyKeys())) {
        st.execute("DELETE FROM " + table);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not empty the tables", e);
    }
  }

  void seed(DeadLetter... rows) {
    String sql =
        "INSERT INTO "
            + tables.deadLetters()
            + " (id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
            + " idempotency_key, occurred_at, created_at, attempts, replay_count, error_code,"
            + " error_reason, first_failed_at, last_failed_at, dead_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (DeadLetter r : rows) {
        JdbcValues.setUuid(ps, 1, r.id(), dialect);
        ps.setString(2, r.aggregateType());
        ps.setString(3, r.aggregateId());
        ps.setString(4, r.eventType());
        ps.setString(5, r.payload());
        ps.setString(6, r.headers());
        ps.setString(7, r.destination());
        ps.setString(8, r.idempotencyKey());
        JdbcValues.setInstant(ps, 9, r.occurredAt(), dialect);
        JdbcValues.setInstant(ps, 10, r.createdAt(), dialect);
        ps.setInt(11, r.attempts());
        ps.setInt(12, r.replayCount());
        ps.setString(13, r.errorCode());
        ps.setString(14, r.errorReason());
        JdbcValues.setInstant(ps, 15, r.firstFailedAt(), dialect);
        JdbcValues.setInstant(ps, 16, r.lastFailedAt(), dialect);
        JdbcValues.setInstant(ps, 17, r.deadAt(), dialect);
        ps.addBatch();
      }
      ps.executeBatch();
    } catch (SQLException e) {
      throw new IllegalStateException("could not seed dead letters", e);
    }
  }

  /** A pending outbox row holding {@code idempotencyKey}, as the writer would leave it. */
  void seedPending(UUID id, String idempotencyKey) {
    String sql =
        "INSERT INTO "
            + tables.messages()
            + " (id, aggregate_type, aggregate_id, event_type, payload, idempotency_key,"
            + " occurred_at, created_at, next_attempt_at)"
            + " VALUES (?, 'Order', 'order-9', 'OrderPlaced', '{}', ?, ?, ?, ?)";
    Instant now = Instant.parse("2026-03-01T03:00:00Z");
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setUuid(ps, 1, id, dialect);
      ps.setString(2, idempotencyKey);
      JdbcValues.setInstant(ps, 3, now, dialect);
      JdbcValues.setInstant(ps, 4, now, dialect);
      JdbcValues.setInstant(ps, 5, now, dialect);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not seed an outbox row", e);
    }
  }

  List<UUID> deadIds() {
    return ids("SELECT id FROM " + tables.deadLetters() + " ORDER BY dead_at, id");
  }

  List<UUID> outboxIds() {
    return ids("SELECT id FROM " + tables.messages() + " ORDER BY id");
  }

  /** Each outbox row's {@code waiting_for}: the key of the destination it waits for, or null. */
  Map<UUID, String> waitingFor() {
    Map<UUID, String> waiting = new HashMap<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT id, waiting_for FROM " + tables.messages() + " ORDER BY id")) {
      while (rs.next()) {
        waiting.put(JdbcValues.getUuid(rs, "id", dialect), rs.getString("waiting_for"));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the outbox", e);
    }
    return waiting;
  }

  long auditCount() {
    return count(tables.deadLetterAudit());
  }

  /** The details JSON of the audit row {@code action} wrote for dead letter {@code id}. */
  String auditDetails(UUID id, String action) {
    String sql =
        "SELECT details FROM "
            + tables.deadLetterAudit()
            + " WHERE dead_letter_id = ? AND action = ?";
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setUuid(ps, 1, id, dialect);
      ps.setString(2, action);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no " + action + " audit row for " + id);
        }
        return rs.getString(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the audit of " + id, e);
    }
  }

  List<OutboxRow> outboxRows() {
    List<OutboxRow> rows = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + tables.messages() + " ORDER BY id")) {
      while (rs.next()) {
        rows.add(
            new OutboxRow(
                JdbcValues.getUuid(rs, "id", dialect),
                rs.getString("aggregate_type"),
                rs.getString("aggregate_id"),
                rs.getString("event_type"),
                rs.getString("payload"),
                rs.getString("headers"),
                rs.getString("destination"),
                rs.getString("idempotency_key"),
                JdbcValues.getInstant(rs, "occurred_at", dialect),
                JdbcValues.getInstant(rs, "created_at", dialect),
                rs.getString("status"),
                rs.getInt("retry_count"),
                rs.getInt("replay_count"),
                JdbcValues.getInstant(rs, "next_attempt_at", dialect),
                rs.getString("locked_by"),
                JdbcValues.getInstant(rs, "locked_until", dialect),
                rs.getString("last_error_code"),
                rs.getString("last_error_reason"),
                JdbcValues.getInstant(rs, "first_failed_at", dialect)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the outbox", e);
    }
    return rows;
  }

  /**
   * Everything in the outbox, dead-letter and audit tables, as text: equal snapshots mean nothing
   * changed.
   */
  String snapshot() {
    StringBuilder out = new StringBuilder();
    for (String sql :
        List.of(
            "SELECT * FROM " + tables.messages() + " ORDER BY id",
            "SELECT * FROM " + tables.deadLetters() + " ORDER BY id",
            "SELECT * FROM " + tables.deadLetterAudit() + " ORDER BY audit_id")) {
      try (Connection c = db.open();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(sql)) {
        int columns = rs.getMetaData().getColumnCount();
        out.append(sql).append('\n');
        while (rs.next()) {
          for (int i = 1; i <= columns; i++) {
            out.append(rs.getString(i)).append('|');
          }
          out.append('\n');
        }
      } catch (SQLException e) {
        throw new IllegalStateException("could not snapshot " + sql, e);
      }
    }
    return out.toString();
  }

  private long count(String table) {
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("could not count " + table, e);
    }
  }

  /** A pending outbox row of this event type and destination (null: routed), due {@code at}. */
  void seedOutbox(UUID id, String eventType, String destination, Instant at) {
    String sql =
        "INSERT INTO "
            + tables.messages()
            + " (id, aggregate_type, aggregate_id, event_type, payload, destination,"
            + " occurred_at, created_at, next_attempt_at)"
            + " VALUES (?, 'Order', ?, ?, '{}', ?, ?, ?, ?)";
    try (Connection c = db.open();
        PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setUuid(ps, 1, id, dialect);
      ps.setString(2, "order-" + id);
      ps.setString(3, eventType);
      ps.setString(4, destination);
      JdbcValues.setInstant(ps, 5, at, dialect);
      JdbcValues.setInstant(ps, 6, at, dialect);
      JdbcValues.setInstant(ps, 7, at, dialect);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not seed an outbox row", e);
    }
  }

  /** Each dead letter's failure fingerprint and masked reason (nulls: none yet). */
  Map<UUID, List<String>> fingerprints() {
    Map<UUID, List<String>> found = new HashMap<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, failure_fingerprint, failure_reason_masked FROM "
                    + tables.deadLetters())) {
      while (rs.next()) {
        found.put(
            JdbcValues.getUuid(rs, "id", dialect),
            java.util.Arrays.asList(
                rs.getString("failure_fingerprint"), rs.getString("failure_reason_masked")));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read fingerprints", e);
    }
    return found;
  }

  /** Each outbox row's re-drive group (null: none). */
  Map<UUID, String> redriveGroups() {
    Map<UUID, String> found = new HashMap<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, redrive_group FROM " + tables.messages())) {
      while (rs.next()) {
        found.put(JdbcValues.getUuid(rs, "id", dialect), rs.getString("redrive_group"));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read re-drive groups", e);
    }
    return found;
  }

  /** The audit rows of {@code action}, counted. */
  long auditCount(String action) {
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM " + tables.deadLetterAudit() + " WHERE action = ?")) {
      ps.setString(1, action);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not count audit rows", e);
    }
  }

  private List<UUID> ids(String sql) {
    List<UUID> ids = new ArrayList<>();
    try (Connection c = db.open();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        ids.add(JdbcValues.getUuid(rs, "id", dialect));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read ids: " + sql, e);
    }
    return ids;
  }
}
