package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What one busy aggregate costs the ordered claim: a key of 1,000 PENDING events beside 100 quiet
 * keys (two events each), then the same with a key of 1,000,000 events. For each, ordered claims of
 * 10 over JDBC, each completed as published, and the mean and median time of the claim alone;
 * prints how many quiet keys the first claim took and the ratio of the two claim times. Asserts
 * nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.FairClaimBenchmark [postgres|mariadb] [CLAIMS]
 * </pre>
 */
public final class FairClaimBenchmark {
  private static final int[] HOT = {1_000, 1_000_000};
  private static final int CLAIM = 10;

  private FairClaimBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    TestDatabase db =
        args.length > 0 && args[0].equals("mariadb")
            ? TestEndpoints.mysql()
            : TestEndpoints.postgres();
    int claims = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    System.out.printf(
        "%s at %s, %d CPUs, ordered claims of %d, %d timed%n",
        db.name(), db.jdbcUrl(), Runtime.getRuntime().availableProcessors(), CLAIM, claims);
    double[] means = new double[HOT.length];
    for (int i = 0; i < HOT.length; i++) {
      means[i] = run(db, HOT[i], claims);
    }
    System.out.printf(
        "%nclaim time, %,d-event key / %,d-event key: %.2f%n", HOT[1], HOT[0], means[1] / means[0]);
  }

  /** The mean claim time in microseconds with a busy key of {@code hot} events. */
  private static double run(TestDatabase db, int hot, int claims) throws Exception {
    OutboxTables tables = db.createTables("fair");
    Instant base = Instant.now().minus(Duration.ofDays(1));
    try (Connection c = db.open()) {
      c.setAutoCommit(true);
      HistoryLoader loader = new HistoryLoader(c, db.dialect(), tables);
      long t0 = System.nanoTime();
      loader.pendingOverKeys(hot, 1, base);
      // 100 quiet keys, o-0 (the busy one) among their names: two more events of it, at the end.
      loader.pendingOverKeys(200, 100, base.plusSeconds(60));
      loader.analyze();
      System.out.printf(
          "%nbusy key of %,d events loaded in %.1f s%n", hot, (System.nanoTime() - t0) / 1e9);
    }
    try (JdbcConnectionProvider p = Stores.connections(db, tables)) {
      OutboxStore store =
          OutboxStore.builder(JdbcExecutor.of(p))
              .tables(tables)
              .ordering(Ordering.AGGREGATE)
              .build();
      store.backlog(Instant.now());
      List<OutboxMessage> first = store.claim("bench", CLAIM, Instant.now(), LEASE).messages();
      long quiet = first.stream().filter(m -> !m.aggregateId().equals("o-0")).count();
      System.out.printf(
          "first claim: %d events, %d of quiet keys, %d of the busy key%n",
          first.size(), quiet, first.size() - quiet);
      publish(store, first);
      for (int n = 0; n < 50; n++) { // warm-up: JIT, prepared statements, caches
        publish(store, store.claim("bench", CLAIM, Instant.now(), LEASE).messages());
      }
      long[] nanos = new long[claims];
      for (int n = 0; n < claims; n++) {
        Instant now = Instant.now();
        long t0 = System.nanoTime();
        List<OutboxMessage> claimed = store.claim("bench", CLAIM, now, LEASE).messages();
        nanos[n] = System.nanoTime() - t0;
        publish(store, claimed);
      }
      Arrays.sort(nanos);
      double mean = Arrays.stream(nanos).average().orElse(0) / 1e3;
      System.out.printf(
          "claim: mean %.0f us, median %.0f us, p99 %.0f us%n",
          mean, nanos[claims / 2] / 1e3, nanos[claims * 99 / 100] / 1e3);
      return mean;
    } finally {
      db.dropTables(tables);
    }
  }

  private static final Duration LEASE = Duration.ofSeconds(30);

  private static void publish(OutboxStore store, List<OutboxMessage> claimed) {
    if (!claimed.isEmpty()) {
      store.complete(
          "bench",
          claimed.stream()
              .<DeliveryOutcome>map(m -> new DeliveryOutcome.Published(m.id()))
              .toList(),
          Instant.now());
    }
  }
}
