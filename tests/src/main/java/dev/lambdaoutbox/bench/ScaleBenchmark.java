package dev.lambdaoutbox.bench;

import static dev.lambdaoutbox.bench.DrainTables.execute;

import dev.lambdaoutbox.core.JdbcValues;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The outbox at production shape: PENDING rows over many aggregates whose sizes follow Zipf's law
 * (s = 1.1: over 10,000 aggregates the largest holds about a seventh of the rows, the smallest a
 * handful), beside millions of retained SENT rows and dead letters. Side by side in one run, on
 * PostgreSQL and MariaDB, through {@code OutboxStore} over JDBC with a publisher that only counts:
 *
 * <ul>
 *   <li>throughput, each contender draining for a fixed time from the same rows: ordered ({@code
 *       OUTBOX_ORDERING=aggregate}) with 1, 2 and 4 pollers, each with both walks (aggregates
 *       reserved first, and the cursor moved by the claim's own transaction), against unordered
 *       with one poller run just before them; the ratios ordered / unordered;
 *   <li>the longest wait of any aggregate's first event, in rounds: the claims until its first
 *       event was claimed, over the claims one round of all aggregates takes (aggregates / claim
 *       size);
 *   <li>the claim's median time before and after the history is loaded;
 *   <li>the retention pass's deletes per second while writers add 1,000 events a second, against
 *       that rate.
 * </ul>
 *
 * Prints; asserts nothing. Each poller thread has its own store and connection, as a Lambda
 * container has.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.ScaleBenchmark [PENDING] [HISTORY] [SECONDS] [postgres|mariadb|both]
 * </pre>
 *
 * Defaults: 1,000,000 pending rows, 5,000,000 history rows (four fifths SENT, one fifth dead
 * letters), 30 s per contender, both databases.
 */
public final class ScaleBenchmark {
  private static final int KEYS = 10_000;
  private static final double ZIPF_S = 1.1;
  private static final int CLAIM = 100;
  private static final int WRITES_PER_SECOND = 1_000;

  private ScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int pending = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int history = args.length > 1 ? Integer.parseInt(args[1]) : 5_000_000;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
    String which = args.length > 3 ? args[3] : "both";
    StringBuilder summary = new StringBuilder();
    if (!which.equals("mariadb")) {
      summary.append(measure(TestEndpoints.postgres(), pending, history, seconds));
    }
    if (!which.equals("postgres")) {
      summary.append(measure(TestEndpoints.mysql(), pending, history, seconds));
    }
    System.out.printf("%n%s", summary);
  }

  private static String measure(TestDatabase db, int pending, int history, int seconds)
      throws Exception {
    OutboxTables tables = db.createTables("scale");
    String source = tables.prefix() + "source";
    System.out.printf(
        "%n%s at %s, %d CPUs: %,d pending rows over %,d aggregates (Zipf s=%.1f), %,d history"
            + " rows, %d s per contender, claims of %d%n",
        db.name(),
        db.jdbcUrl(),
        Runtime.getRuntime().availableProcessors(),
        pending,
        KEYS,
        ZIPF_S,
        history,
        seconds,
        CLAIM);
    StringBuilder out = new StringBuilder();
    try (Connection c = db.open()) {
      c.setAutoCommit(true);
      HistoryLoader loader = new HistoryLoader(c, db.dialect(), tables);
      long t0 = System.nanoTime();
      long[] sizes = loader.pendingZipf(pending, KEYS, ZIPF_S, Instant.now().minusSeconds(3600));
      System.out.printf(
          "  loaded in %.0f s; largest aggregates %s ... smallest %d%n",
          (System.nanoTime() - t0) / 1e9,
          Arrays.toString(Arrays.copyOf(sizes, 3)),
          sizes[sizes.length - 1]);
      execute(c, "DROP TABLE IF EXISTS " + source);
      execute(c, "CREATE TABLE " + source + " AS SELECT * FROM " + tables.messages());

      System.out.println(" without history:");
      Contender bareUnordered = run(c, db, tables, source, Ordering.NONE, 1, null, seconds);
      Contender bareOrdered = run(c, db, tables, source, Ordering.AGGREGATE, 1, null, seconds);

      t0 = System.nanoTime();
      Instant before = Instant.now().minus(Duration.ofDays(30));
      int sent = history - history / 5;
      for (int done = 0; done < sent; done += HistoryLoader.MAX_MYSQL_ROWS) {
        int n = Math.min(HistoryLoader.MAX_MYSQL_ROWS, sent - done);
        loader.sent(n, before.minus(Duration.ofSeconds(done)));
      }
      for (int done = 0; done < history / 5; done += HistoryLoader.MAX_MYSQL_ROWS) {
        int n = Math.min(HistoryLoader.MAX_MYSQL_ROWS, history / 5 - done);
        loader.deadLetters(n, before.minus(Duration.ofSeconds(done)));
      }
      loader.analyze();
      System.out.printf(
          " with %,d SENT rows and %,d dead letters (loaded in %.0f s):%n",
          sent, history / 5, (System.nanoTime() - t0) / 1e9);
      // Each ordered contender beside the other walk, one after the other, after an unordered
      // one that is their baseline, as the machine's load moves during a run: the cursor moved by
      // the claim's own transaction, or aggregates reserved first
      // (OutboxStore.Builder#reserveAggregates), whichever is not the dialect's default.
      boolean otherWalk = db.dialect() != SqlDialect.MYSQL;
      List<Contender> baselines = new ArrayList<>();
      List<Contender> ordered = new ArrayList<>();
      List<Contender> other = new ArrayList<>();
      for (int pollers : new int[] {1, 2, 4}) {
        baselines.add(run(c, db, tables, source, Ordering.NONE, 1, null, seconds));
        ordered.add(run(c, db, tables, source, Ordering.AGGREGATE, pollers, null, seconds));
        other.add(run(c, db, tables, source, Ordering.AGGREGATE, pollers, otherWalk, seconds));
      }
      Contender unordered = baselines.get(0);

      out.append(
          String.format(
              "%n%s: %,d pending over %,d aggregates (Zipf %.1f), %,d history rows, %d s each;"
                  + " each ordered pair against the unordered contender run just before it%n",
              db.name(), pending, KEYS, ZIPF_S, history, seconds));
      out.append(
          "| contender | events/s | / unordered | longest first-event wait (rounds) | claim"
              + " median ms |\n|---|---:|---:|---:|---:|\n");
      for (int i = 0; i < baselines.size(); i++) {
        out.append(baselines.get(i).row(baselines.get(i)));
        out.append(ordered.get(i).row(baselines.get(i)));
        out.append(other.get(i).row(baselines.get(i)));
      }
      out.append(
          String.format(
              "claim median before -> after history: unordered %.2f -> %.2f ms (%.2fx), ordered"
                  + " %.2f -> %.2f ms (%.2fx)%n",
              bareUnordered.claimMedianMs(),
              unordered.claimMedianMs(),
              unordered.claimMedianMs() / bareUnordered.claimMedianMs(),
              bareOrdered.claimMedianMs(),
              ordered.get(0).claimMedianMs(),
              ordered.get(0).claimMedianMs() / bareOrdered.claimMedianMs()));
      out.append(purge(c, db, tables, seconds)).append('\n');
    } finally {
      try (Connection c = db.open()) {
        execute(c, "DROP TABLE IF EXISTS " + source);
      }
      db.dropTables(tables);
    }
    return out.toString();
  }

  /**
   * One contender, from a fresh copy of the pending rows (the history stays) and the ordered
   * claim's cursor at the first key.
   */
  private static Contender run(
      Connection c,
      TestDatabase db,
      OutboxTables tables,
      String source,
      Ordering ordering,
      int pollers,
      Boolean reserve,
      int seconds)
      throws Exception {
    execute(c, "DELETE FROM " + tables.messages() + " WHERE status = 'PENDING'");
    execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source);
    DrainTables.resetClaimCursor(c, tables);
    execute(
        c,
        (db.dialect() == SqlDialect.POSTGRESQL ? "VACUUM ANALYZE " : "ANALYZE TABLE ")
            + tables.messages());
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Contender result = drain(db, tables, ordering, pollers, reserve, Duration.ofSeconds(seconds));
    System.out.printf(
        "  %-52s %,9d events in %6.1f s = %,8.0f events/s; %,d claims, median %.2f ms, p99 %.2f"
            + " ms; first events of %,d aggregates, the last after %.2f rounds; load average"
            + " %.2f before, %.2f after%n",
        result.name,
        result.published,
        result.seconds,
        result.perSecond(),
        result.claimMillis.size(),
        result.claimMedianMs(),
        result.claimP99Ms(),
        result.firstClaim.size(),
        result.longestFirstWaitRounds(),
        load,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    return result;
  }

  /** Pollers claiming, counting and completing as published, until {@code slice} has passed. */
  private static Contender drain(
      TestDatabase db,
      OutboxTables tables,
      Ordering ordering,
      int pollers,
      Boolean reserve,
      Duration slice)
      throws Exception {
    AtomicLong published = new AtomicLong();
    AtomicInteger claims = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    List<Double> claimMillis = Collections.synchronizedList(new ArrayList<>());
    Map<String, Integer> firstClaim = new ConcurrentHashMap<>();
    List<JdbcConnectionProvider> providers = new ArrayList<>();
    List<OutboxStore> stores = new ArrayList<>();
    for (int i = 0; i < pollers; i++) {
      JdbcConnectionProvider p = Stores.connections(db, tables);
      providers.add(p);
      OutboxStore.Builder builder =
          OutboxStore.builder(JdbcExecutor.of(p)).tables(tables).ordering(ordering);
      if (reserve != null) {
        builder.reserveAggregates(reserve);
      }
      OutboxStore store = builder.build();
      store.backlog(Instant.now()); // connected before the clock starts, as a warm Lambda is
      stores.add(store);
    }
    ExecutorService pool = Executors.newFixedThreadPool(pollers);
    long start = System.nanoTime();
    long end = start + slice.toNanos();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < pollers; i++) {
        OutboxStore store = stores.get(i);
        String owner = "scale-" + i;
        running.add(
            pool.submit(
                () -> {
                  while (System.nanoTime() < end && !stop.get()) {
                    Instant now = Instant.now();
                    long t = System.nanoTime();
                    List<OutboxMessage> claimed =
                        store.claim(owner, CLAIM, now, Duration.ofMinutes(5)).messages();
                    claimMillis.add((System.nanoTime() - t) / 1e6);
                    int index = claims.incrementAndGet();
                    if (claimed.isEmpty()) {
                      if (ordering == Ordering.NONE) {
                        stop.set(true);
                      }
                      Thread.sleep(1);
                      continue;
                    }
                    List<DeliveryOutcome> outcomes = new ArrayList<>(claimed.size());
                    for (OutboxMessage m : claimed) {
                      firstClaim.putIfAbsent(m.aggregateId(), index);
                      outcomes.add(new DeliveryOutcome.Published(m.id()));
                    }
                    published.addAndGet(
                        store.complete(owner, outcomes, now).count(Completion.Result.PUBLISHED));
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      providers.forEach(JdbcConnectionProvider::close);
    }
    String name =
        (ordering == Ordering.AGGREGATE ? "ordered, " : "unordered, ")
            + pollers
            + (pollers > 1 ? " pollers" : " poller")
            + (reserve == null
                ? ""
                : reserve ? ", aggregates reserved first" : ", cursor moved by the claim");
    return new Contender(
        name, published.get(), (System.nanoTime() - start) / 1e9, claimMillis, firstClaim);
  }

  /**
   * What the retention pass deletes a second from a table of retained SENT rows past their time,
   * while writers add {@link #WRITES_PER_SECOND} events a second: the rate it must at least match.
   */
  private static String purge(Connection c, TestDatabase db, OutboxTables tables, int seconds)
      throws Exception {
    execute(c, "DELETE FROM " + tables.messages() + " WHERE status = 'PENDING'");
    JdbcConnectionProvider p = Stores.connections(db, tables);
    OutboxStore store =
        OutboxStore.builder(JdbcExecutor.of(p))
            .tables(tables)
            .retention(Duration.ofDays(1))
            .build();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLong written = new AtomicLong();
    Thread writer =
        new Thread(
            () -> {
              try (Connection w = db.open()) {
                w.setAutoCommit(true);
                String sql =
                    "INSERT INTO "
                        + tables.messages()
                        + " (id, aggregate_type, aggregate_id, event_type, payload, occurred_at,"
                        + " created_at, status, next_attempt_at) VALUES (?, 'order', ?,"
                        + " 'order.created', '{\"n\":1}', ?, ?, 'PENDING', ?)";
                try (PreparedStatement ps = w.prepareStatement(sql)) {
                  long started = System.nanoTime();
                  while (writing.get()) {
                    long due = (System.nanoTime() - started) * WRITES_PER_SECOND / 1_000_000_000L;
                    if (written.get() >= due) {
                      Thread.sleep(1);
                      continue;
                    }
                    Instant now = Instant.now();
                    JdbcValues.setUuid(ps, 1, UUID.randomUUID(), db.dialect());
                    ps.setString(2, "w-" + written.get());
                    JdbcValues.setInstant(ps, 3, now, db.dialect());
                    JdbcValues.setInstant(ps, 4, now, db.dialect());
                    JdbcValues.setInstant(ps, 5, now.plusSeconds(3600), db.dialect());
                    ps.executeUpdate();
                    written.incrementAndGet();
                  }
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "scale-writer");
    writer.start();
    long purged = 0;
    long start = System.nanoTime();
    long end = start + Duration.ofSeconds(seconds).toNanos();
    boolean caughtUp = false;
    try {
      while (System.nanoTime() < end && !caughtUp) {
        PurgeReport report = store.purge(Instant.now(), Duration.ofSeconds(5));
        purged += report.total();
        caughtUp = report.caughtUp();
      }
    } finally {
      writing.set(false);
      writer.join();
      p.close();
    }
    double took = (System.nanoTime() - start) / 1e9;
    String line =
        String.format(
            "retention pass beside %,d writes/s (%,d written): %,d SENT rows deleted in %.1f s ="
                + " %,.0f rows/s, %.1fx the write rate%s",
            WRITES_PER_SECOND,
            written.get(),
            purged,
            took,
            purged / took,
            purged / took / WRITES_PER_SECOND,
            caughtUp ? " (caught up)" : "");
    System.out.println("  " + line);
    return line;
  }

  /** One contender's figures. */
  private record Contender(
      String name,
      long published,
      double seconds,
      List<Double> claimMillis,
      Map<String, Integer> firstClaim) {
    double perSecond() {
      return published / seconds;
    }

    double claimMedianMs() {
      return percentile(0.5);
    }

    double claimP99Ms() {
      return percentile(0.99);
    }

    /** The claims until the last aggregate's first event, over the claims of one round. */
    double longestFirstWaitRounds() {
      int last = firstClaim.values().stream().mapToInt(Integer::intValue).max().orElse(0);
      return last / Math.ceil((double) KEYS / CLAIM);
    }

    String row(Contender unordered) {
      return String.format(
          "| %s | %,.0f | %.2f | %s | %.2f |%n",
          name,
          perSecond(),
          perSecond() / unordered.perSecond(),
          firstClaim.size() < KEYS
              ? firstClaim.size() + " of " + KEYS + " aggregates reached"
              : String.format("%.2f", longestFirstWaitRounds()),
          claimMedianMs());
    }

    private double percentile(double p) {
      List<Double> sorted;
      synchronized (claimMillis) {
        sorted = new ArrayList<>(claimMillis);
      }
      if (sorted.isEmpty()) {
        return Double.NaN;
      }
      Collections.sort(sorted);
      return sorted.get(Math.min(sorted.size() - 1, (int) (p * sorted.size())));
    }
  }
}
