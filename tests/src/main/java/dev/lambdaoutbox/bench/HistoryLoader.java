package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

/**
 * Fills outbox tables fast with set-based SQL (PostgreSQL {@code generate_series}, MySQL a cross
 * join of a recursive CTE): pending rows due from a base time, retained SENT rows, dead letters and
 * idempotency keys from before it. Rows look like ordinary events with a ~200-byte JSON payload.
 */
public final class HistoryLoader {
  private static final String PAYLOAD_PREFIX =
      "{\"orderId\":\"o-\",\"customer\":\"c-1234567\",\"currency\":\"EUR\",\"lines\":"
          + "[{\"sku\":\"SKU-0001\",\"qty\":2,\"price\":\"19.90\"},{\"sku\":\"SKU-0002\",\"qty\":1,"
          + "\"price\":\"5.00\"}],\"note\":\"generated for the benchmark\",\"n\":";

  /** The MySQL row source is a 1,000 x 1,000 cross join. */
  public static final int MAX_MYSQL_ROWS = 1_000_000;

  private final Connection c;
  private final SqlDialect dialect;
  private final OutboxTables tables;

  public HistoryLoader(Connection c, SqlDialect dialect, OutboxTables tables) {
    this.c = c;
    this.dialect = dialect;
    this.tables = tables;
  }

  /** {@code count} PENDING rows, the n-th due (and created) at {@code base} + n microseconds. */
  public int pending(int count, Instant base) throws SQLException {
    return insertMessages(count, base, "PENDING", 1, 0);
  }

  /**
   * {@code count} PENDING rows over {@code keys} aggregates ({@code o-0} to {@code o-<keys-1>},
   * taken in turn), the n-th due (and created) at {@code base} + n microseconds: each aggregate's
   * rows due in the order they were inserted.
   */
  public int pendingOverKeys(int count, int keys, Instant base) throws SQLException {
    if (keys < 1) {
      throw new IllegalArgumentException("keys must be positive, not " + keys);
    }
    return insertMessages(count, base, "PENDING", 1, keys);
  }

  /** {@code count} SENT rows, sent (and created) before {@code base}, one a millisecond. */
  public int sent(int count, Instant base) throws SQLException {
    return insertMessages(count, base, "SENT", -1000, 0);
  }

  /** {@code count} dead letters that died before {@code base}, one a millisecond. */
  public int deadLetters(int count, Instant base) throws SQLException {
    String columns =
        "id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
            + " idempotency_key, occurred_at, created_at, attempts, replay_count, error_code,"
            + " error_reason, first_failed_at, last_failed_at, dead_at";
    String at = time("n * -1000");
    String select =
        uuid()
            + ", 'order', "
            + concat("'o-'", "n")
            + ", 'order.created', "
            + concat("'" + PAYLOAD_PREFIX + "'", "n", "'}'")
            + ", NULL, NULL, NULL, "
            + at
            + ", "
            + at
            + ", 10, 0, 'InvalidParameter', 'rejected by the broker', "
            + at
            + ", "
            + at
            + ", "
            + at;
    return insert(tables.deadLetters(), columns, select, count, base);
  }

  /**
   * {@code count} idempotency keys ({@code prefix} and a number), first seen before {@code base},
   * one a millisecond, as the writer leaves them once their events have left the outbox.
   */
  public int idempotencyKeys(String prefix, int count, Instant base) throws SQLException {
    String at = time("n * -1000");
    String select = concat("'" + prefix + "'", "n") + ", " + uuid() + ", " + at;
    return insert(
        tables.idempotencyKeys(), "idempotency_key, event_id, first_seen_at", select, count, base);
  }

  /**
   * Cleans out dead row versions and refreshes the planner's statistics, as autovacuum eventually
   * would (PostgreSQL {@code VACUUM ANALYZE}, MySQL {@code ANALYZE TABLE}).
   */
  public void analyze() throws SQLException {
    commitIfNeeded();
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(true); // PostgreSQL runs VACUUM only outside a transaction
    try (Statement st = c.createStatement()) {
      for (String t : new String[] {tables.messages(), tables.deadLetters()}) {
        st.execute((dialect == SqlDialect.POSTGRESQL ? "VACUUM ANALYZE " : "ANALYZE TABLE ") + t);
      }
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /** {@code keys} 0: every row an aggregate of its own. */
  private int insertMessages(int count, Instant base, String status, int microsPerRow, int keys)
      throws SQLException {
    String columns =
        "id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
            + " idempotency_key, occurred_at, created_at, status, next_attempt_at, sent_at";
    String at = time("n * " + microsPerRow);
    String select =
        uuid()
            + ", 'order', "
            + concat("'o-'", keys == 0 ? "n" : "(n % " + keys + ")")
            + ", 'order.created', "
            + concat("'" + PAYLOAD_PREFIX + "'", "n", "'}'")
            + ", '{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}',"
            + " NULL, NULL, "
            + at
            + ", "
            + at
            + ", '"
            + status
            + "', "
            + at
            + ", "
            + (status.equals("SENT") ? at : "NULL");
    return insert(tables.messages(), columns, select, count, base);
  }

  private int insert(String table, String columns, String select, int count, Instant base)
      throws SQLException {
    String sql =
        dialect == SqlDialect.POSTGRESQL
            ? "INSERT INTO "
                + table
                + " ("
                + columns
                + ") SELECT "
                + select
                + " FROM (SELECT ?::timestamptz AS base) b, generate_series(1, ?) AS s(n)"
            : "INSERT INTO "
                + table
                + " ("
                + columns
                + ") WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 999)"
                + " SELECT "
                + select
                + " FROM (SELECT CAST(? AS DATETIME(6)) AS base) b, (SELECT hi.i * 1000 + lo.i + 1 AS n FROM d hi, d lo)"
                + " s WHERE s.n <= ?";
    if (dialect == SqlDialect.MYSQL && count > MAX_MYSQL_ROWS) {
      throw new IllegalArgumentException("at most " + MAX_MYSQL_ROWS + " rows per call in MySQL");
    }
    int inserted;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      JdbcValues.setInstant(ps, 1, base, dialect);
      ps.setInt(2, count);
      inserted = ps.executeUpdate();
    }
    commitIfNeeded();
    return inserted;
  }

  private String uuid() {
    return dialect == SqlDialect.POSTGRESQL ? "gen_random_uuid()" : "UUID()";
  }

  private String time(String microsExpression) {
    return dialect == SqlDialect.POSTGRESQL
        ? "b.base + (" + microsExpression + ") * interval '1 microsecond'"
        : "b.base + INTERVAL (" + microsExpression + ") MICROSECOND";
  }

  private String concat(String... parts) {
    return dialect == SqlDialect.POSTGRESQL
        ? String.join(" || ", parts)
        : "CONCAT(" + String.join(", ", parts) + ")";
  }

  private void commitIfNeeded() throws SQLException {
    if (!c.getAutoCommit()) {
      c.commit();
    }
  }
}
