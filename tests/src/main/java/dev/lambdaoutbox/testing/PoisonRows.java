package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Outbox rows the writer would never write, made with SQL as a hand-fix or a careless migration
 * would make them: every kind of row the poller cannot read that the database lets SQL store. Each
 * starts as a good row; then one column is overwritten.
 */
public final class PoisonRows {
  /** The text columns a dead letter carries over from its outbox row, as stored. */
  public static final List<String> TEXT_COLUMNS =
      List.of(
          "aggregate_type",
          "aggregate_id",
          "event_type",
          "payload",
          "headers",
          "destination",
          "idempotency_key");

  /**
   * One kind of poison.
   *
   * @param name names the kind (and, as idempotency key {@code poison-<name>}, the row)
   * @param column the column overwritten
   * @param postgres the column's new value as PostgreSQL SQL; null where it cannot be written
   * @param mysql the same for MySQL and MariaDB
   */
  public record Kind(String name, String column, String postgres, String mysql) {
    public String sql(SqlDialect dialect) {
      return dialect == SqlDialect.POSTGRESQL ? postgres : mysql;
    }

    /** Where the poller finds the row: the idempotency key it was written with. */
    public String key() {
      return "poison-" + name;
    }

    public boolean isTime() {
      return column.endsWith("_at");
    }
  }

  private static final List<Kind> KINDS =
      List.of(
          both("headers-null-value", "headers", "'{\"a\":null}'"),
          both("headers-array", "headers", "'[]'"),
          both("headers-not-json", "headers", "'not json'"),
          both("headers-number-value", "headers", "'{\"a\":1}'"),
          both("headers-name-twice", "headers", "'{\"a\":\"x\",\"a\":\"y\"}'"),
          both("headers-text-after-object", "headers", "'{\"a\":\"x\"} y'"),
          both("headers-name-with-space", "headers", "'{\"bad name\":\"v\"}'"),
          both("headers-reserved-name", "headers", "'{\"eventId\":\"x\"}'"),
          // A forged claim check: the attribute would make the message point into S3.
          both("headers-claim-check-size", "headers", "'{\"ExtendedPayloadSize\":\"9\"}'"),
          both("headers-empty-value", "headers", "'{\"a\":\"\"}'"),
          both(
              "headers-six",
              "headers",
              "'{\"h1\":\"v\",\"h2\":\"v\",\"h3\":\"v\",\"h4\":\"v\",\"h5\":\"v\",\"h6\":\"v\"}'"),
          both("payload-not-json", "payload", "'not json'"),
          both("payload-empty", "payload", "''"),
          both("payload-two-values", "payload", "'{\"a\":1} {\"b\":2}'"),
          both("payload-noncharacter", "payload", "'{\"a\":\"\uFFFF\"}'"),
          both("aggregate-type-empty", "aggregate_type", "''"),
          both("aggregate-id-blank", "aggregate_id", "'   '"),
          new Kind(
              "event-type-control-character",
              "event_type",
              "'order.created' || chr(1)",
              "CONCAT('order.created', CHAR(1))"),
          new Kind("occurred-at-infinity", "occurred_at", "'infinity'", null),
          new Kind("created-at-year-10000", "created_at", "'10000-01-01 00:00:00+00'", null),
          new Kind("first-failed-at-bc", "first_failed_at", "'0044-03-15 00:00:00+00 BC'", null),
          new Kind("id-not-a-uuid", "id", null, "'not-a-uuid'"),
          new Kind("id-short-groups", "id", null, "'1-2-3-4-5'"),
          new Kind("occurred-at-zero-date", "occurred_at", null, "'0000-00-00 00:00:00'"),
          new Kind("first-failed-at-zero-day", "first_failed_at", null, "'2026-03-00 10:00:00'"));

  private PoisonRows() {}

  private static Kind both(String name, String column, String sql) {
    return new Kind(name, column, sql, sql);
  }

  /** Every kind {@code dialect} can store. */
  public static List<Kind> kinds(SqlDialect dialect) {
    return KINDS.stream().filter(k -> k.sql(dialect) != null).toList();
  }

  /** The kind named {@code name}. */
  public static Kind named(String name) {
    return KINDS.stream()
        .filter(k -> k.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no poison kind " + name));
  }

  /** Overwrites the column of the outbox row {@code id} with {@code kind}'s value. */
  public static void poison(TestDatabase db, OutboxTables tables, UUID id, Kind kind) {
    try (Connection c = db.open()) {
      if (db.dialect() == SqlDialect.MYSQL) {
        try (Statement st = c.createStatement()) {
          st.execute("SET SESSION sql_mode = ''"); // zero dates, as a lenient server takes them
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE "
                  + tables.messages()
                  + " SET "
                  + kind.column()
                  + " = "
                  + kind.sql(db.dialect())
                  + " WHERE id = ?")) {
        JdbcValues.setUuid(ps, 1, id, db.dialect());
        if (ps.executeUpdate() != 1) {
          throw new IllegalStateException("no outbox row " + id + " to poison");
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not poison " + id + " with " + kind, e);
    }
  }

  /**
   * The rows of {@code table} whose idempotency key starts with {@code keyPrefix}, by key: each of
   * {@code columns} as the text the database returns.
   */
  public static Map<String, Map<String, String>> rowsAsText(
      TestDatabase db, String table, String keyPrefix, List<String> columns) {
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT "
                    + String.join(", ", columns)
                    + ", idempotency_key AS row_key FROM "
                    + table
                    + " WHERE idempotency_key LIKE ?")) {
      ps.setString(1, keyPrefix + "%");
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Map<String, String> row = new LinkedHashMap<>();
          for (int i = 0; i < columns.size(); i++) {
            row.put(columns.get(i), rs.getString(i + 1));
          }
          rows.put(rs.getString("row_key"), row);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read " + table, e);
    }
    return rows;
  }
}
