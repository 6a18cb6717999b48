package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxTables;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The main throughput benchmark, on PostgreSQL: 200,000 pending rows drained by {@code OutboxStore}
 * over JDBC (claim + complete as published, with a publisher that only counts), by the seed
 * articles' polling loop, and by gruelbox transaction-outbox, and a bare {@code DELETE ...
 * RETURNING} loop as the ceiling. Prints events/s and the ratios; asserts nothing.
 *
 * <pre>
 * ./mvnw -B -q -pl tests -am compile exec:java \
 *     -Dexec.mainClass=dev.lambdaoutbox.bench.PollerDrainBenchmark [-Dexec.args="ROWS BUDGET_SECONDS"]
 * </pre>
 *
 * The slow contenders stop after the time budget (default 120 s) and are rated on the rows they got
 * through, which is still per-event throughput.
 */
public final class PollerDrainBenchmark {
  private PollerDrainBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    double budget = args.length > 1 ? Double.parseDouble(args[1]) : 120;
    boolean storeOnly = args.length > 2 && args[2].equals("store-only");
    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = db.createTables("drain");
    String source = tables.prefix() + "source";
    String naive = tables.prefix() + "naive_outbox";
    List<DrainResult> results = new ArrayList<>();
    System.out.printf(
        "PostgreSQL at %s, %d CPUs, %,d rows%n",
        db.jdbcUrl(), Runtime.getRuntime().availableProcessors(), rows);
    try (Connection c = db.open()) {
      c.setAutoCommit(true);
      new HistoryLoader(c, db.dialect(), tables)
          .pending(rows, Instant.now().minus(Duration.ofDays(1)));
      execute(c, "CREATE TABLE " + source + " AS SELECT * FROM " + tables.messages());

      // Warm-up, not reported: JIT, server-side prepared statements, caches.
      execute(c, "DELETE FROM " + tables.messages());
      execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source + " LIMIT 20000");
      StoreDrain.run(db, tables, 1, 1000);

      reload(c, tables, source);
      results.add(print(DeleteReturningDrain.run(db, tables)));
      for (int[] shape : new int[][] {{1, 500}, {1, 1000}, {2, 1000}, {1, 2000}, {2, 2000}}) {
        reload(c, tables, source);
        results.add(print(StoreDrain.run(db, tables, shape[0], shape[1])));
      }
      // Opt-in, not the default: asynchronous commit for the poller's own session (see
      // docs/PERFORMANCE.md). A database crash may then forget the last claims and completions,
      // which redelivers those events; it never loses one.
      reload(c, tables, source);
      results.add(
          print(
              StoreDrain.run(asyncCommit(db), tables, 2, 1000)
                  .named("+ synchronous_commit=off (URL option)")));
      if (storeOnly) {
        report(results);
        return;
      }
      NaiveDrain.createTable(c, naive, source);
      results.add(print(NaiveDrain.run(db, naive, rows, budget)));
      results.add(print(GruelboxDrain.run(db, tables.prefix() + "txno", rows, budget)));
    } finally {
      try (Connection c = db.open()) {
        execute(c, "DROP TABLE IF EXISTS " + source);
        execute(c, "DROP TABLE IF EXISTS " + naive);
      }
      db.dropTables(tables);
    }
    report(results);
  }

  private static TestDatabase asyncCommit(TestDatabase db) {
    String url =
        db.jdbcUrl()
            + (db.jdbcUrl().contains("?") ? "&" : "?")
            + "options=-c%20synchronous_commit%3Doff";
    return new TestDatabase(db.name(), db.dialect(), url, db.user(), db.password());
  }

  private static void reload(Connection c, OutboxTables tables, String source) throws Exception {
    execute(c, "DELETE FROM " + tables.messages());
    execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source);
    execute(c, "VACUUM ANALYZE " + tables.messages());
  }

  private static DrainResult print(DrainResult r) {
    System.out.printf(
        "  %-58s %,9d events in %7.2f s = %,9.0f events/s %s%n",
        r.name(), r.events(), r.seconds(), r.perSecond(), r.note());
    return r;
  }

  private static void report(List<DrainResult> results) {
    DrainResult reference = results.get(0);
    List<DrainResult> ours = results.subList(1, 7);
    DrainResult oursSingle = results.get(2); // 1 thread, claim 1000
    DrainResult oursBest =
        ours.subList(0, 5).stream() // the default settings only
            .max((a, b) -> Double.compare(a.perSecond(), b.perSecond()))
            .orElseThrow();
    System.out.printf(
        "%n| contender | events | seconds | events/s | note |%n|---|---:|---:|---:|---|%n");
    for (DrainResult r : results) {
      System.out.printf(
          "| %s | %,d | %.2f | %,.0f | %s |%n",
          r.name(), r.events(), r.seconds(), r.perSecond(), r.note());
    }
    System.out.printf("%nours, best default shape: %s%n", oursBest.name());
    if (results.size() > 8) {
      DrainResult naive = results.get(7);
      DrainResult gruelbox = results.get(8);
      System.out.printf(
          "ours (best) / naive loop                 = %,.1fx%n", ratio(oursBest, naive));
      System.out.printf(
          "ours (best) / transaction-outbox         = %,.1fx%n", ratio(oursBest, gruelbox));
      System.out.printf(
          "ours (1 thread, claim 1000) / naive      = %,.1fx%n", ratio(oursSingle, naive));
      System.out.printf(
          "ours (1 thread, claim 1000) / txn-outbox = %,.1fx%n", ratio(oursSingle, gruelbox));
    }
    System.out.printf(
        "ours (best) / bare DELETE ... RETURNING  = %.2f%n", ratio(oursBest, reference));
  }

  private static double ratio(DrainResult a, DrainResult b) {
    return a.perSecond() / b.perSecond();
  }

  private static void execute(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
