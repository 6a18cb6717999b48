package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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

  /**
   * Commits {@code rows} due rows (a day old) to {@code tables} in bulk, and analyses the table: a
   * backlog for a benchmark to drain.
   */
  static void backlog(TestDatabase db, OutboxTables tables, int rows) throws SQLException {
    try (Connection c = db.open()) {
      c.setAutoCommit(true);
      HistoryLoader loader = new HistoryLoader(c, db.dialect(), tables);
      loader.pending(rows, Instant.now().minus(Duration.ofDays(1)));
      loader.analyze();
    }
  }

  /** {@code count} PENDING rows, the n-th due (and created) at {@code base} + n microseconds. */
  public int pending(int count, Instant base) throws SQLException {
    return insertMessages(count, base, "PENDING", 1, "n");
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
    return insertMessages(count, base, "PENDING", 1, "(n % " + keys + ")");
  }

  /**
   * {@code count} PENDING rows over {@code keys} aggregates whose sizes follow Zipf's law with
   * exponent {@code s}: the aggregate of rank r ({@code o-r}, from {@code o-1}) gets a share
   * proportional to r^-s, at least one row. Each aggregate's rows are inserted in turn, due (and
   * created) spread evenly over {@code count} microseconds from {@code base}, so the aggregates
   * interleave in time and each one's rows are due in the order they were inserted. Returns the
   * rows per aggregate, largest first.
   */
  public long[] pendingZipf(int count, int keys, double s, Instant base) throws SQLException {
    long[] sizes = zipfSizes(count, keys, s);
    String keySizes = tables.prefix() + "zipf_keys";
    String numbers = tables.prefix() + "zipf_numbers";
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE " + keySizes + " (k INT PRIMARY KEY, size INT NOT NULL)");
      st.execute("CREATE TABLE " + numbers + " (n INT PRIMARY KEY)");
    }
    try {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO " + keySizes + " (k, size) VALUES (?, ?)")) {
        for (int k = 0; k < keys; k++) {
          ps.setInt(1, k + 1);
          ps.setLong(2, sizes[k]);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      insert(numbers, "n", "n", (int) sizes[0], base);
      // The n-th row of aggregate k is due n/size of the way through, so every aggregate's rows
      // spread over the whole span and interleave with the others'.
      String offset =
          dialect == SqlDialect.POSTGRESQL
              ? "(CAST(s.n AS bigint) * " + count + " / z.size)"
              : "(s.n * " + count + " DIV z.size)";
      String sql =
          "INSERT INTO "
              + tables.messages()
              + " ("
              + MESSAGE_COLUMNS
              + ") SELECT "
              + messageSelect("PENDING", time(offset), "z.k")
              + " FROM (SELECT "
              + (dialect == SqlDialect.POSTGRESQL
                  ? "CAST(? AS timestamptz)"
                  : "CAST(? AS DATETIME(6))")
              + " AS base) b, "
              + keySizes
              + " z JOIN "
              + numbers
              + " s ON s.n <= z.size ORDER BY z.k, s.n";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        JdbcValues.setInstant(ps, 1, base, dialect);
        if (ps.executeUpdate() != count) {
          throw new IllegalStateException("the Zipf load did not insert " + count + " rows");
        }
      }
      commitIfNeeded();
      return sizes;
    } finally {
      try (Statement st = c.createStatement()) {
        st.execute("DROP TABLE " + keySizes);
        st.execute("DROP TABLE " + numbers);
      }
      commitIfNeeded();
    }
  }

  /** Zipf's law over {@code keys} ranks, scaled to {@code count} rows, each rank at least one. */
  static long[] zipfSizes(int count, int keys, double s) {
    if (keys < 1 || keys > count) {
      throw new IllegalArgumentException("keys must be 1 to " + count + ", not " + keys);
    }
    double h = 0;
    for (int r = 1; r <= keys; r++) {
      h += Math.pow(r, -s);
    }
    long[] sizes = new long[keys];
    long total = 0;
    for (int r = 1; r <= keys; r++) {
      sizes[r - 1] = Math.max(1, (long) Math.floor(count * Math.pow(r, -s) / h));
      total += sizes[r - 1];
    }
    sizes[0] += count - total; // the remainder of the rounding goes to the largest
    return sizes;
  }

  /** {@code count} SENT rows, sent (and created) before {@code base}, one a millisecond. */
  public int sent(int count, Instant base) throws SQLException {
    return insertMessages(count, base, "SENT", -1000, "n");
  }

  /**
   * {@code count} SENT rows over {@code keys} aggregates ({@code o-<first>} to {@code
   * o-<first+keys-1>}, taken in turn), sent (and created) before {@code base}, one a millisecond.
   */
  public int sentOverKeys(int count, int keys, int first, Instant base) throws SQLException {
    if (keys < 1) {
      throw new IllegalArgumentException("keys must be positive, not " + keys);
    }
    return insertMessages(count, base, "SENT", -1000, "(" + first + " + n % " + keys + ")");
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

  /** The n-th row's aggregate is {@code o-} and {@code aggregate}, an expression of n. */
  private int insertMessages(
      int count, Instant base, String status, int microsPerRow, String aggregate)
      throws SQLException {
    return insert(
        tables.messages(),
        MESSAGE_COLUMNS,
        messageSelect(status, time("n * " + microsPerRow), aggregate),
        count,
        base);
  }

  private static final String MESSAGE_COLUMNS =
      "id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
          + " idempotency_key, occurred_at, created_at, status, next_attempt_at, sent_at,"
          + " not_before";

  /** An outbox row of {@code status}, written {@code at}, of aggregate {@code o-<aggregate>}. */
  private String messageSelect(String status, String at, String aggregate) {
    return uuid()
        + ", 'order', "
        + concat("'o-'", aggregate)
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
        + (status.equals("SENT") ? at : "NULL")
        + ", "
        + at;
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
