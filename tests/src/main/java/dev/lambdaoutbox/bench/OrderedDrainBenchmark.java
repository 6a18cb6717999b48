package dev.lambdaoutbox.bench;

import static dev.lambdaoutbox.bench.DrainTables.execute;
import static dev.lambdaoutbox.bench.DrainTables.print;
import static dev.lambdaoutbox.bench.DrainTables.reload;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * What per-aggregate ordering costs the drain: 200,000 pending rows spread over 10,000 aggregates,
 * then over 100, each drained by {@code OutboxStore} over JDBC unordered and with {@code
 * OUTBOX_ORDERING=aggregate}, side by side in one run, in the shapes of {@link
 * PollerDrainBenchmark} (claim + complete as published, a publisher that only counts). Prints
 * events/s and ordered/unordered ratios; asserts nothing.
 *
 * <p>Over 100 aggregates a claim can take at most 100 rows (one per aggregate), and each claim
 * walks past the rows queued behind the heads it takes: the cost of strict order on few keys.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.OrderedDrainBenchmark [ROWS] [postgres|mariadb] [KEYS,...]
 * </pre>
 *
 * Over 100 aggregates the two-thread shape is left out: the ordered claim of 1,000 there takes
 * minutes, and a second thread only adds contention for the same 100 heads.
 */
public final class OrderedDrainBenchmark {
  private static final int[] KEYS = {10_000, 100};
  private static final int[][] SHAPES = {{1, 100}, {1, 1000}, {2, 1000}};

  private OrderedDrainBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    TestDatabase db =
        args.length > 1 && args[1].equals("mariadb")
            ? TestEndpoints.mysql()
            : TestEndpoints.postgres();
    int[] keySets =
        args.length > 2
            ? java.util.Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray()
            : KEYS;
    OutboxTables tables = db.createTables("odrain");
    String source = tables.prefix() + "source";
    System.out.printf(
        "%s at %s, %d CPUs, %,d rows%n",
        db.name(), db.jdbcUrl(), Runtime.getRuntime().availableProcessors(), rows);
    StringBuilder table =
        new StringBuilder(
            "| aggregates | shape | unordered events/s | ordered events/s | ordered / unordered"
                + " |\n|---:|---|---:|---:|---:|\n");
    try (Connection c = db.open()) {
      c.setAutoCommit(true);
      for (int keys : keySets) {
        execute(c, "DELETE FROM " + tables.messages());
        new HistoryLoader(c, db.dialect(), tables)
            .pendingOverKeys(rows, keys, Instant.now().minus(Duration.ofDays(1)));
        execute(c, "DROP TABLE IF EXISTS " + source);
        execute(c, "CREATE TABLE " + source + " AS SELECT * FROM " + tables.messages());
        System.out.printf("%n%,d rows over %,d aggregates%n", rows, keys);

        // Warm-up on a tenth of the rows, not reported: JIT, prepared statements, caches.
        for (Ordering ordering : Ordering.values()) {
          execute(c, "DELETE FROM " + tables.messages());
          execute(
              c,
              "INSERT INTO "
                  + tables.messages()
                  + " SELECT * FROM "
                  + source
                  + " LIMIT "
                  + rows / 10);
          StoreDrain.run(db, tables, 1, 1000, ordering);
        }

        for (int[] shape : SHAPES) {
          if (keys < 1000 && shape[0] > 1) {
            continue;
          }
          reload(c, db, tables, source);
          DrainResult unordered =
              print(StoreDrain.run(db, tables, shape[0], shape[1], Ordering.NONE));
          reload(c, db, tables, source);
          DrainResult ordered =
              print(StoreDrain.run(db, tables, shape[0], shape[1], Ordering.AGGREGATE));
          double ratio = ordered.perSecond() / unordered.perSecond();
          System.out.printf("  ordered / unordered = %.2f%n", ratio);
          table.append(
              String.format(
                  "| %,d | %d thread%s, claim %d | %,.0f | %,.0f | %.2f |%n",
                  keys,
                  shape[0],
                  shape[0] > 1 ? "s" : "",
                  shape[1],
                  unordered.perSecond(),
                  ordered.perSecond(),
                  ratio));
        }
      }
    } finally {
      try (Connection c = db.open()) {
        execute(c, "DROP TABLE IF EXISTS " + source);
      }
      db.dropTables(tables);
    }
    System.out.printf("%n%s", table);
  }
}
