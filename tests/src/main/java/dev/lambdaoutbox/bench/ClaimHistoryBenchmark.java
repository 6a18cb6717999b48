package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;

/**
 * Shows that claiming costs the same however much history the tables hold: claim latency with 1,000
 * pending rows alone, then again after loading 1,000,000 dead letters and 1,000,000 retained SENT
 * rows, with the claim plan both times. A harness that prints, not a test that asserts.
 *
 * <pre>
 * ./mvnw -B -q -pl tests -am compile exec:java \
 *     -Dexec.mainClass=dev.lambdaoutbox.bench.ClaimHistoryBenchmark [-Dexec.args="postgres|mariadb"]
 * </pre>
 */
public final class ClaimHistoryBenchmark {
  private static final int PENDING = 1_000;
  private static final int HISTORY = 1_000_000;
  private static final int CLAIM = 100;
  private static final int ROUNDS = 300;
  private static final Instant BASE = Instant.parse("2026-03-01T10:00:00Z");

  private ClaimHistoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    String which = args.length > 0 ? args[0] : "all";
    if (which.equals("all") || which.equals("postgres")) {
      run(TestEndpoints.postgres());
    }
    if (which.equals("all") || which.equals("mariadb")) {
      run(TestEndpoints.mysql());
    }
  }

  private static void run(TestDatabase db) throws Exception {
    System.out.printf("%n=== %s (%s)%n", db.name(), db.jdbcUrl());
    OutboxTables tables = db.createTables("hist");
    try (Connection c = db.open();
        JdbcConnectionProvider connections = Stores.connections(db, tables)) {
      c.setAutoCommit(false);
      HistoryLoader loader = new HistoryLoader(c, db.dialect(), tables);
      OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();

      loader.pending(PENDING, BASE);
      loader.analyze();
      Stats before = measure(store, BASE.plusSeconds(3600));
      String planBefore = Stores.explainClaim(db, tables, BASE.plusSeconds(3600), CLAIM);
      c.commit();

      long t0 = System.nanoTime();
      loader.deadLetters(HISTORY, BASE);
      loader.sent(HISTORY, BASE);
      loader.analyze();
      System.out.printf(
          "loaded %,d dead letters and %,d SENT rows in %.1f s%n",
          HISTORY, HISTORY, (System.nanoTime() - t0) / 1e9);
      Stats after = measure(store, BASE.plusSeconds(7200));
      String planAfter = Stores.explainClaim(db, tables, BASE.plusSeconds(7200), CLAIM);
      c.commit();

      System.out.printf(
          "%nclaim of %d rows (%d rounds)  | median ms | p95 ms | backlog() ms%n", CLAIM, ROUNDS);
      System.out.printf(
          "%-30s | %9.2f | %6.2f | %12.1f%n",
          "1,000 pending only", before.median, before.p95, before.backlogMs);
      System.out.printf(
          "%-30s | %9.2f | %6.2f | %12.1f%n",
          "+ 1M dead letters + 1M SENT", after.median, after.p95, after.backlogMs);
      System.out.printf("%nclaim plan, 1,000 pending only:%n%s", planBefore);
      System.out.printf("%nclaim plan, with 2M rows of history:%n%s", planAfter);
    } finally {
      db.dropTables(tables);
    }
  }

  /**
   * Claims {@link #CLAIM} rows {@link #ROUNDS} times. Each lease is one millisecond and each round
   * a millisecond later, so the same pending rows come due again and the claim always has work.
   */
  private static Stats measure(OutboxStore store, Instant start) {
    Instant now = start;
    for (int i = 0; i < 50; i++) { // warm-up: JIT, server-side prepare, caches
      now = now.plusMillis(2);
      store.claim("bench", CLAIM, now, Duration.ofMillis(1));
    }
    double[] ms = new double[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
      now = now.plusMillis(2);
      long t = System.nanoTime();
      Claim claimed = store.claim("bench", CLAIM, now, Duration.ofMillis(1));
      ms[i] = (System.nanoTime() - t) / 1e6;
      if (claimed.size() != CLAIM) {
        throw new IllegalStateException("claimed " + claimed.size() + " rows, expected " + CLAIM);
      }
    }
    long t = System.nanoTime();
    store.backlog(now);
    double backlogMs = (System.nanoTime() - t) / 1e6;
    Arrays.sort(ms);
    return new Stats(ms[ROUNDS / 2], ms[(int) (ROUNDS * 0.95)], backlogMs);
  }

  private record Stats(double median, double p95, double backlogMs) {}

  static {
    Locale.setDefault(Locale.ROOT);
  }
}
