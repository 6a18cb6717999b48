package dev.lambdaoutbox.bench;

import static dev.lambdaoutbox.bench.DrainTables.execute;
import static dev.lambdaoutbox.bench.DrainTables.print;
import static dev.lambdaoutbox.bench.DrainTables.reload;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The main throughput benchmark: 200,000 pending rows drained by a bare {@code DELETE ...
 * RETURNING} loop (the ceiling), by {@code OutboxStore} over JDBC (claim + complete as published,
 * with a publisher that only counts), by the real poller's invocations ({@link PollerRunDrain}),
 * and, on PostgreSQL, by the seed articles' polling loop and by gruelbox transaction-outbox. Prints
 * events/s and the ratios; asserts nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.PollerDrainBenchmark [ROWS [BUDGET_SECONDS [store-only|poller-only]]]
 * JAVA_OPTS="-Dbench.databases=postgres,mariadb"
 * </pre>
 *
 * The poller runs twice: pipelined (the default) and sequential ({@code OUTBOX_PIPELINE=false}).
 * {@code poller-only} keeps the ceiling, the store at claims of 1,000 and the pollers. The slow
 * contenders stop after the time budget (default 120 s) and are rated on the rows they got through,
 * which is still per-event throughput. MariaDB runs the ceiling, the store and the poller only.
 */
public final class PollerDrainBenchmark {
  /** The poller as it was before pipelining: claim, publish, record, one after the other. */
  private static final Map<String, String> SEQUENTIAL =
      Map.of(PollerVariables.PIPELINE.name(), "false");

  private PollerDrainBenchmark() {}

  /** What one database's run measured, by role. */
  private record Run(
      TestDatabase db,
      DrainResult reference,
      List<DrainResult> store,
      DrainResult storeSingle,
      DrainResult sequentialSingle,
      DrainResult sequentialPair,
      DrainResult pollerSingle,
      DrainResult pollerPair,
      List<DrainResult> all) {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    double budget = args.length > 1 ? Double.parseDouble(args[1]) : 120;
    boolean pollerOnly = args.length > 2 && args[2].equals("poller-only");
    boolean storeOnly = pollerOnly || args.length > 2 && args[2].equals("store-only");
    List<String> wanted =
        List.of(System.getProperty("bench.databases", "postgres,mariadb").split(","));
    List<Run> runs = new ArrayList<>();
    if (wanted.contains("postgres")) {
      runs.add(run(TestEndpoints.postgres(), rows, budget, storeOnly, pollerOnly));
    }
    if (wanted.contains("mariadb")) {
      runs.add(run(TestEndpoints.mysql(), rows, budget, true, pollerOnly));
    }
    for (Run r : runs) {
      report(r);
    }
  }

  private static Run run(
      TestDatabase db, int rows, double budget, boolean storeOnly, boolean pollerOnly)
      throws Exception {
    OutboxTables tables = db.createTables("drain");
    String source = tables.prefix() + "source";
    String naive = tables.prefix() + "naive_outbox";
    List<DrainResult> all = new ArrayList<>();
    System.out.printf(
        "%s at %s, %d CPUs, %,d rows%n",
        db.name(), db.jdbcUrl(), Runtime.getRuntime().availableProcessors(), rows);
    try (Connection c = db.open()) {
      c.setAutoCommit(true);
      new HistoryLoader(c, db.dialect(), tables)
          .pending(rows, Instant.now().minus(Duration.ofDays(1)));
      execute(c, "CREATE TABLE " + source + " AS SELECT * FROM " + tables.messages());

      // Warm-up, not reported: JIT, server-side prepared statements, caches.
      execute(c, "DELETE FROM " + tables.messages());
      execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source + " LIMIT 20000");
      StoreDrain.run(db, tables, 1, 1000);
      execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source + " LIMIT 20000");
      PollerRunDrain.run(db, tables, 1, 1000, Map.of());
      execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source + " LIMIT 20000");
      PollerRunDrain.run(db, tables, 1, 1000, SEQUENTIAL);

      reload(c, db, tables, source);
      DrainResult reference = print(DeleteReturningDrain.run(db, tables));
      all.add(reference);
      List<DrainResult> store = new ArrayList<>();
      int[][] shapes =
          pollerOnly
              ? new int[][] {{2, 1000}, {1, 1000}}
              : new int[][] {{1, 500}, {1, 1000}, {2, 1000}, {1, 2000}, {2, 2000}};
      for (int[] shape : shapes) {
        reload(c, db, tables, source);
        store.add(print(StoreDrain.run(db, tables, shape[0], shape[1])));
      }
      all.addAll(store);
      // Sequential and pipelined in turn, so that a change in the machine's load hits both alike.
      reload(c, db, tables, source);
      DrainResult sequentialSingle = print(PollerRunDrain.run(db, tables, 1, 1000, SEQUENTIAL));
      reload(c, db, tables, source);
      DrainResult pollerSingle = print(PollerRunDrain.run(db, tables, 1, 1000, Map.of()));
      reload(c, db, tables, source);
      DrainResult sequentialPair = print(PollerRunDrain.run(db, tables, 2, 1000, SEQUENTIAL));
      reload(c, db, tables, source);
      DrainResult pollerPair = print(PollerRunDrain.run(db, tables, 2, 1000, Map.of()));
      all.add(sequentialSingle);
      all.add(pollerSingle);
      all.add(sequentialPair);
      all.add(pollerPair);
      if (db.dialect() == SqlDialect.POSTGRESQL && !pollerOnly) {
        // Opt-in, not the default: asynchronous commit for the poller's own session (see
        // docs/PERFORMANCE.md). A database crash may then forget the last claims and completions,
        // which redelivers those events; it never loses one.
        reload(c, db, tables, source);
        all.add(
            print(
                StoreDrain.run(asyncCommit(db), tables, 2, 1000)
                    .named("+ synchronous_commit=off (URL option)")));
      }
      if (!storeOnly) {
        NaiveDrain.createTable(c, naive, source);
        all.add(print(NaiveDrain.run(db, naive, rows, budget)));
        all.add(print(GruelboxDrain.run(db, tables.prefix() + "txno", rows, budget)));
      }
      return new Run(
          db,
          reference,
          store,
          store.get(1),
          sequentialSingle,
          sequentialPair,
          pollerSingle,
          pollerPair,
          all);
    } finally {
      try (Connection c = db.open()) {
        execute(c, "DROP TABLE IF EXISTS " + source);
        execute(c, "DROP TABLE IF EXISTS " + naive);
      }
      db.dropTables(tables);
    }
  }

  private static TestDatabase asyncCommit(TestDatabase db) {
    String url =
        db.jdbcUrl()
            + (db.jdbcUrl().contains("?") ? "&" : "?")
            + "options=-c%20synchronous_commit%3Doff";
    return new TestDatabase(db.name(), db.dialect(), url, db.user(), db.password());
  }

  private static void report(Run run) {
    System.out.printf(
        "%n%s%n| contender | events | seconds | events/s | note |%n|---|---:|---:|---:|---|%n",
        run.db().name());
    for (DrainResult r : run.all()) {
      System.out.printf(
          "| %s | %,d | %.2f | %,.0f | %s |%n",
          r.name(), r.events(), r.seconds(), r.perSecond(), r.note());
    }
    DrainResult storeBest =
        run.store().stream()
            .max((a, b) -> Double.compare(a.perSecond(), b.perSecond()))
            .orElseThrow();
    DrainResult reference = run.reference();
    System.out.printf("%nstore loop, best shape: %s%n", storeBest.name());
    run.all().stream()
        .filter(r -> r.name().startsWith("seed articles"))
        .findFirst()
        .ifPresent(
            naive -> {
              System.out.printf(
                  "store loop (best) / naive loop                 = %,.1fx%n",
                  ratio(storeBest, naive));
              System.out.printf(
                  "store loop (1 thread, claim 1000) / naive      = %,.1fx%n",
                  ratio(run.storeSingle(), naive));
            });
    run.all().stream()
        .filter(r -> r.name().startsWith("gruelbox"))
        .findFirst()
        .ifPresent(
            gruelbox -> {
              System.out.printf(
                  "store loop (best) / transaction-outbox         = %,.1fx%n",
                  ratio(storeBest, gruelbox));
              System.out.printf(
                  "store loop (1 thread, claim 1000) / txn-outbox = %,.1fx%n",
                  ratio(run.storeSingle(), gruelbox));
            });
    System.out.printf(
        "store loop (best) / bare DELETE ... RETURNING  = %.2f%n", ratio(storeBest, reference));
    System.out.printf(
        "store loop (1 thread, claim 1000) / bare DELETE = %.2f%n",
        ratio(run.storeSingle(), reference));
    System.out.printf(
        "one poller, sequential / bare DELETE           = %.2f%n",
        ratio(run.sequentialSingle(), reference));
    System.out.printf(
        "two pollers, sequential / bare DELETE          = %.2f%n",
        ratio(run.sequentialPair(), reference));
    System.out.printf(
        "one poller (batch 1000) / bare DELETE          = %.2f   (target at least 0.7)%n",
        ratio(run.pollerSingle(), reference));
    System.out.printf(
        "two pollers (batch 1000) / bare DELETE         = %.2f   (target at least 0.85)%n",
        ratio(run.pollerPair(), reference));
  }

  private static double ratio(DrainResult a, DrainResult b) {
    return a.perSecond() / b.perSecond();
  }
}
