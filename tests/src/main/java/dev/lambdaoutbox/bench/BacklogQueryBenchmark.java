package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.internal.StoreSql;
import dev.lambdaoutbox.store.internal.dialect.ExplainSql;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the metrics alarms watch cost to read once the tables are large: 1,000 pending rows, then
 * 1,000,000 dead letters and 1,000,000 retained SENT rows. Times, side by side in one run, with the
 * statements taking turns so load on the machine falls on all alike: the backlog statement the
 * poller ran before (oldest due row among the first 1,000 due, and an exact {@code COUNT(*)} of the
 * dead letters) and its parts; the one it runs now ({@link ExplainSql#backlogSql()}: the oldest
 * unpublished row from the unpublished index, the dead letters counted up to 10,001, the
 * destination health counts) and its parts; and the destination health read each claim adds. Each
 * statement is one transaction of the store's executor, as the poller runs it. Prints milliseconds
 * per query and the plans; asserts nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.BacklogQueryBenchmark [postgres|mariadb|all] [ROUNDS]
 * </pre>
 */
public final class BacklogQueryBenchmark {
  private static final int PENDING = 1_000;
  private static final int HISTORY = 1_000_000;
  private static final Instant BASE = Instant.parse("2026-03-01T10:00:00Z");

  private BacklogQueryBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    String which = args.length > 0 ? args[0] : "all";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    if (which.equals("all") || which.equals("postgres")) {
      run(TestEndpoints.postgres(), rounds);
    }
    if (which.equals("all") || which.equals("mariadb")) {
      run(TestEndpoints.mysql(), rounds);
    }
  }

  private static void run(TestDatabase db, int rounds) throws Exception {
    System.out.printf("%n=== %s (%s)%n", db.name(), db.jdbcUrl());
    OutboxTables tables = db.createTables("gauge");
    try (Connection c = db.open();
        JdbcConnectionProvider connections = Stores.connections(db, tables)) {
      c.setAutoCommit(false);
      HistoryLoader loader = new HistoryLoader(c, db.dialect(), tables);
      long t0 = System.nanoTime();
      loader.pending(PENDING, BASE);
      loader.deadLetters(HISTORY, BASE);
      loader.sent(HISTORY, BASE);
      loader.analyze();
      System.out.printf(
          "loaded %,d pending rows, %,d dead letters and %,d SENT rows in %.1f s%n",
          PENDING, HISTORY, HISTORY, (System.nanoTime() - t0) / 1e9);

      SqlExecutor executor = JdbcExecutor.of(connections);
      OutboxStore store = OutboxStore.builder(executor).tables(tables).build();
      ExplainSql dialect = StoreSql.explain(db.dialect(), tables);
      Instant now = BASE.plus(Duration.ofHours(1));
      Map<String, Query> queries = new LinkedHashMap<>();
      queries.put("before: backlog statement", old(db.dialect(), tables, true, true));
      queries.put("  oldest due (first 1,000 due)", old(db.dialect(), tables, true, false));
      queries.put("  COUNT(*) dead letters", old(db.dialect(), tables, false, true));
      queries.put(
          "after: backlog statement",
          new Query(dialect.backlogSql(), Params.of().timestamp("staleBefore", now)));
      queries.put(
          "  oldest unpublished (index)",
          new Query(
              "SELECT MIN(created_at) AS oldest FROM "
                  + tables.messages()
                  + " WHERE status = 'PENDING'",
              Params.none()));
      queries.put(
          "  dead letters counted to 10,001",
          new Query(
              "SELECT count(*) AS n FROM (SELECT 1 AS one FROM "
                  + tables.deadLetters()
                  + " LIMIT "
                  + (Backlog.DEAD_LETTER_COUNT_CAP + 1)
                  + ") capped",
              Params.none()));

      Map<String, double[]> ms = new LinkedHashMap<>();
      queries.keySet().forEach(name -> ms.put(name, new double[rounds]));
      double[] backlogCall = new double[rounds];
      double[] healthRead = new double[rounds];
      for (int warm = 0; warm < 5; warm++) {
        queries.values().forEach(q -> q.run(executor));
        store.backlog(now);
        store.destinationHealth().all();
      }
      for (int i = 0; i < rounds; i++) {
        for (Map.Entry<String, Query> q : queries.entrySet()) {
          long t = System.nanoTime();
          q.getValue().run(executor);
          ms.get(q.getKey())[i] = (System.nanoTime() - t) / 1e6;
        }
        long t = System.nanoTime();
        store.backlog(now);
        backlogCall[i] = (System.nanoTime() - t) / 1e6;
        t = System.nanoTime();
        store.destinationHealth().all();
        healthRead[i] = (System.nanoTime() - t) / 1e6;
      }

      System.out.printf(
          "%n%-42s | median ms | p95 ms%n%s%n", "query (" + rounds + " runs each)", "-".repeat(64));
      ms.forEach((name, times) -> print(name, times));
      print("OutboxStore.backlog() (the poller's call)", backlogCall);
      print("destination health read (once per claim)", healthRead);
      double before = median(ms.get("before: backlog statement"));
      double after = median(ms.get("after: backlog statement"));
      System.out.printf(
          "%nbacklog statement, before / after = %.1fx (%.2f ms -> %.2f ms)%n",
          before / after, before, after);
      String plan = executor.inTransaction("explain", s -> dialect.explainBacklog(s, now));
      System.out.printf("%nplan of the backlog statement now:%n%s", plan);
    } finally {
      db.dropTables(tables);
    }
  }

  /** The statement the poller ran before (or one of its two parts), in {@code dialect}. */
  private static Query old(
      SqlDialect dialect, OutboxTables tables, boolean oldest, boolean deadLetters) {
    String now =
        dialect == SqlDialect.POSTGRESQL ? "(CAST(:now AS timestamp) AT TIME ZONE 'UTC')" : ":now";
    List<String> parts = new ArrayList<>();
    if (oldest) {
      parts.add(
          "(SELECT MIN(created_at) FROM (SELECT created_at FROM "
              + tables.messages()
              + " WHERE status = 'PENDING' AND next_attempt_at <= "
              + now
              + " ORDER BY next_attempt_at, id LIMIT 1000) due) AS oldest_created_at");
    }
    if (deadLetters) {
      parts.add("(SELECT COUNT(*) FROM " + tables.deadLetters() + ") AS dead_letters");
    }
    Params params =
        oldest ? Params.of().timestamp("now", BASE.plus(Duration.ofHours(1))) : Params.none();
    return new Query("SELECT " + String.join(", ", parts), params);
  }

  private record Query(String sql, Params params) {
    void run(SqlExecutor executor) {
      executor.inTransaction("measure", s -> s.query(sql, params));
    }
  }

  private static void print(String name, double[] times) {
    double[] sorted = times.clone();
    Arrays.sort(sorted);
    System.out.printf(
        "%-42s | %9.2f | %6.2f%n", name, median(times), sorted[(int) (sorted.length * 0.95)]);
  }

  private static double median(double[] times) {
    double[] sorted = times.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
