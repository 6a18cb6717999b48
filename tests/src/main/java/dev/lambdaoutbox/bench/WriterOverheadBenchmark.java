package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What appending to the outbox adds to a business transaction. A harness that prints figures, not a
 * test: it asserts nothing.
 *
 * <p>For each database it times, side by side in one run:
 *
 * <ul>
 *   <li>(a) a business INSERT and commit;
 *   <li>(b) the same INSERT plus {@link OutboxWriter#append} and commit;
 *   <li>(c) as (b), the event carrying an idempotency key, which the writer also stores in the key
 *       table; "x (b)" is (c) against (b), what the key costs;
 *   <li>(r) as (b), but the same outbox row written by a hand-written INSERT: what storing the row
 *       costs the database with no library code at all, so (b) against (r) is the library's share;
 *   <li>(rk) as (r), with the key in the outbox row and a hand-written INSERT of it into the key
 *       table first: what storing the key costs the database in two statements. "x (r)" is (rk)
 *       against (r) there, and (c) against (rk) for (c).
 * </ul>
 *
 * <p>After a warm-up it runs several rounds, each starting from empty tables (untimed). Within a
 * round the variants take turns in short slices, in alternating order, so that changes in the
 * machine's load (the databases may be shared) fall on all of them alike. It runs single-threaded
 * and with several threads, each thread on its own connection; "x (a)" is the wall-clock time per
 * transaction relative to (a).
 *
 * <pre>
 * ./mvnw -B -q -pl tests -am compile exec:java \
 *     -Dexec.mainClass=dev.lambdaoutbox.bench.WriterOverheadBenchmark
 * </pre>
 *
 * <p>System properties: {@code bench.rounds} (5), {@code bench.transactions} per variant and round
 * (2000), {@code bench.warmup} transactions per variant (2000), {@code bench.slice} transactions
 * per thread before the next variant's turn (50), {@code bench.threads}, the thread counts to run
 * ("1,8"), and {@code bench.databases} ("postgres,mariadb"). Databases come from {@link
 * TestEndpoints}; MariaDB is skipped when none is available.
 */
public final class WriterOverheadBenchmark {
  private static final DateTimeFormatter MYSQL_DATETIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);
  private static final String TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private final int rounds = Integer.getInteger("bench.rounds", 5);
  private final int transactions = Integer.getInteger("bench.transactions", 2_000);
  private final int warmup = Integer.getInteger("bench.warmup", 2_000);
  private final int slice = Integer.getInteger("bench.slice", 50);
  private final int[] threadCounts =
      Arrays.stream(System.getProperty("bench.threads", "1,8").split(","))
          .mapToInt(Integer::parseInt)
          .toArray();

  enum Variant {
    INSERT_ONLY("(a) INSERT + commit"),
    WITH_APPEND("(b) INSERT + append + commit"),
    WITH_KEYED_APPEND("(c) as (b), with idempotency key"),
    /** The floor: what storing the same row costs the database, with no library code at all. */
    WITH_RAW_INSERT("(r) as (b), hand-written INSERT"),
    /** The floor for (c): the key in the outbox row and in the key table, SQL by hand. */
    WITH_RAW_KEYED_INSERT("(rk) as (r), key stored by hand");

    final String label;

    Variant(String label) {
      this.label = label;
    }
  }

  /** The business fact the event reports; serialized by the writer's Jackson mapper. */
  record OrderPlaced(
      String orderId, String customerId, long amountCents, String currency, List<Line> lines) {}

  record Line(String sku, int quantity, long unitPriceCents) {}

  public static void main(String[] args) throws Exception {
    WriterOverheadBenchmark bench = new WriterOverheadBenchmark();
    List<String> wanted =
        List.of(System.getProperty("bench.databases", "postgres,mariadb").split(","));
    List<TestDatabase> databases = new ArrayList<>();
    if (wanted.contains("postgres")) {
      databases.add(TestEndpoints.postgres());
    }
    if (wanted.contains("mariadb")) {
      try {
        databases.add(TestEndpoints.mysql());
      } catch (IllegalStateException e) {
        System.out.println("MariaDB skipped: " + e.getMessage());
      }
    }
    for (TestDatabase db : databases) {
      bench.run(db);
    }
  }

  private void run(TestDatabase db) throws Exception {
    OutboxTables tables = db.createTables("bench");
    String orders = tables.prefix() + "orders";
    try (Connection c = db.open();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + orders
              + " (id varchar(36) NOT NULL PRIMARY KEY, customer_id varchar(64) NOT NULL,"
              + " amount_cents bigint NOT NULL, status varchar(16) NOT NULL)");
    }
    try {
      Workload workload = new Workload(db, tables, orders, OutboxWriter.builder().tables(tables));
      System.out.printf(
          Locale.ROOT,
          "%n%s (%s), JDK %s, writer from %s%n%d rounds x %d transactions per variant,"
              + " after %d warm-up%n",
          db.name(),
          serverVersion(db),
          Runtime.version(),
          OutboxWriter.class.getProtectionDomain().getCodeSource().getLocation(),
          rounds,
          transactions,
          warmup);
      printHeader();
      for (int n : threadCounts) {
        print(n, measure(workload, n));
      }
    } finally {
      try (Connection c = db.open();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + orders);
      }
      db.dropTables(tables);
    }
  }

  private Map<Variant, Timings> measure(Workload workload, int threadCount) throws Exception {
    List<Connection> connections = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threadCount);
    try {
      for (int i = 0; i < threadCount; i++) {
        Connection c = workload.db.open();
        c.setAutoCommit(false);
        connections.add(c);
      }
      workload.truncate();
      round(workload, connections, pool, warmup, newTimings());
      Map<Variant, Timings> timings = newTimings();
      for (int r = 0; r < rounds; r++) {
        workload.truncate();
        round(workload, connections, pool, transactions, timings);
      }
      return timings;
    } finally {
      pool.shutdownNow();
      for (Connection c : connections) {
        c.close();
      }
    }
  }

  /**
   * One round: {@code perVariant} transactions of each variant, in slices of {@link #slice} per
   * connection, the variants taking turns slice by slice in alternating order.
   */
  private void round(
      Workload workload,
      List<Connection> connections,
      ExecutorService pool,
      int perVariant,
      Map<Variant, Timings> timings)
      throws Exception {
    int perSlice = slice * connections.size();
    boolean forward = true;
    for (int done = 0; done < perVariant; done += perSlice) {
      List<Variant> order = List.of(Variant.values());
      for (Variant v : forward ? order : order.reversed()) {
        timings
            .get(v)
            .add(workload.timeSlice(v, connections, pool, Math.min(perSlice, perVariant - done)));
      }
      forward = !forward;
    }
  }

  private static Map<Variant, Timings> newTimings() {
    Map<Variant, Timings> timings = new EnumMap<>(Variant.class);
    for (Variant v : Variant.values()) {
      timings.put(v, new Timings());
    }
    return timings;
  }

  /** The transactions being timed, on one database. */
  private static final class Workload {
    final TestDatabase db;
    final OutboxTables tables;
    final String insertOrder;
    final String orders;
    final OutboxWriter writer;
    final String insertOutboxRow;
    final String insertKey;

    Workload(TestDatabase db, OutboxTables tables, String orders, OutboxWriter.Builder writer) {
      this.db = db;
      this.tables = tables;
      this.orders = orders;
      this.insertOrder =
          "INSERT INTO " + orders + " (id, customer_id, amount_cents, status) VALUES (?, ?, ?, ?)";
      this.writer = writer.build();
      this.insertKey =
          "INSERT INTO "
              + tables.idempotencyKeys()
              + " (idempotency_key, event_id, first_seen_at) VALUES (?, ?, ?)";
      this.insertOutboxRow =
          "INSERT INTO "
              + tables.messages()
              + " (id, aggregate_type, aggregate_id, event_type, payload, headers, destination,"
              + " idempotency_key, occurred_at, created_at, next_attempt_at)"
              + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    }

    void truncate() throws SQLException {
      try (Connection c = db.open();
          Statement st = c.createStatement()) {
        st.execute("TRUNCATE TABLE " + orders);
        st.execute("TRUNCATE TABLE " + tables.messages());
        st.execute("TRUNCATE TABLE " + tables.idempotencyKeys());
      }
    }

    /** Runs {@code total} transactions of {@code v}, shared among the connections. */
    Slice timeSlice(Variant v, List<Connection> connections, ExecutorService pool, int total)
        throws Exception {
      int n = connections.size();
      CountDownLatch start = new CountDownLatch(1);
      List<Future<long[]>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Connection c = connections.get(i);
        int share = total / n + (i < total % n ? 1 : 0);
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  long[] latencies = new long[share];
                  for (int t = 0; t < share; t++) {
                    latencies[t] = transaction(c, v);
                  }
                  return latencies;
                }));
      }
      long began = System.nanoTime();
      start.countDown();
      long[] all = new long[0];
      for (Future<long[]> f : futures) {
        long[] part = f.get();
        long[] joined = Arrays.copyOf(all, all.length + part.length);
        System.arraycopy(part, 0, joined, all.length, part.length);
        all = joined;
      }
      return new Slice(System.nanoTime() - began, all);
    }

    /** One business transaction; returns how long it took, in nanoseconds. */
    long transaction(Connection c, Variant v) throws SQLException {
      String orderId = UUID.randomUUID().toString();
      String customerId = "c-" + ThreadLocalRandom.current().nextInt(10_000);
      long began = System.nanoTime();
      try (PreparedStatement ps = c.prepareStatement(insertOrder)) {
        ps.setString(1, orderId);
        ps.setString(2, customerId);
        ps.setLong(3, 4_250);
        ps.setString(4, "PLACED");
        ps.executeUpdate();
      }
      if (v == Variant.WITH_RAW_INSERT || v == Variant.WITH_RAW_KEYED_INSERT) {
        rawOutboxInsert(c, orderId, customerId, v == Variant.WITH_RAW_KEYED_INSERT);
      } else if (v != Variant.INSERT_ONLY) {
        OutboxEvent.Builder event =
            OutboxEvent.builder()
                .aggregateType("order")
                .aggregateId(orderId)
                .eventType("order.placed")
                .payload(
                    new OrderPlaced(
                        orderId,
                        customerId,
                        4_250,
                        "EUR",
                        List.of(new Line("sku-123", 2, 1_500), new Line("sku-456", 1, 1_250))))
                .header("traceparent", TRACEPARENT);
        if (v == Variant.WITH_KEYED_APPEND) {
          event.idempotencyKey("place-" + orderId);
        }
        writer.append(c, event.build());
      }
      c.commit();
      return System.nanoTime() - began;
    }

    /**
     * The outbox row (b) writes, with a fixed payload and the SQL written out by hand; {@code
     * keyed}: with its key, also written to the key table first, as (c) does in two statements.
     */
    void rawOutboxInsert(Connection c, String orderId, String customerId, boolean keyed)
        throws SQLException {
      UUID id = UUID.randomUUID();
      Instant now = Instant.now();
      if (keyed) {
        try (PreparedStatement ps = c.prepareStatement(insertKey)) {
          ps.setString(1, "place-" + orderId);
          setId(ps, 2, id);
          setTime(ps, 3, now);
          ps.executeUpdate();
        }
      }
      try (PreparedStatement ps = c.prepareStatement(insertOutboxRow)) {
        setId(ps, 1, id);
        ps.setString(2, "order");
        ps.setString(3, orderId);
        ps.setString(4, "order.placed");
        ps.setString(
            5,
            "{\"orderId\":\""
                + orderId
                + "\",\"customerId\":\""
                + customerId
                + "\",\"amountCents\":4250,\"currency\":\"EUR\",\"lines\":[{\"sku\":\"sku-123\","
                + "\"quantity\":2,\"unitPriceCents\":1500},{\"sku\":\"sku-456\",\"quantity\":1,"
                + "\"unitPriceCents\":1250}]}");
        ps.setString(6, "{\"traceparent\":\"" + TRACEPARENT + "\"}");
        ps.setString(7, null);
        ps.setString(8, keyed ? "place-" + orderId : null);
        for (int i = 9; i <= 11; i++) {
          setTime(ps, i, now);
        }
        ps.executeUpdate();
      }
    }

    private void setId(PreparedStatement ps, int index, UUID id) throws SQLException {
      if (db.dialect() == SqlDialect.POSTGRESQL) {
        ps.setObject(index, id);
      } else {
        ps.setString(index, id.toString());
      }
    }

    private void setTime(PreparedStatement ps, int index, Instant time) throws SQLException {
      if (db.dialect() == SqlDialect.POSTGRESQL) {
        ps.setObject(index, time.atOffset(ZoneOffset.UTC));
      } else {
        ps.setString(index, MYSQL_DATETIME.format(time.atOffset(ZoneOffset.UTC)));
      }
    }
  }

  /** One slice: its wall-clock time and each transaction's latency. */
  record Slice(long elapsedNanos, long[] latencies) {}

  /** All rounds of one variant. */
  private static final class Timings {
    long elapsedNanos;
    long count;
    final List<long[]> latencies = new ArrayList<>();

    void add(Slice slice) {
      elapsedNanos += slice.elapsedNanos();
      count += slice.latencies().length;
      latencies.add(slice.latencies());
    }

    double transactionsPerSecond() {
      return count * 1e9 / elapsedNanos;
    }

    /** Wall-clock time per transaction, in microseconds. */
    double microsPerTransaction() {
      return elapsedNanos / 1e3 / count;
    }

    double percentileMillis(double p) {
      long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
      int index = (int) Math.ceil(p / 100 * all.length) - 1;
      return all[Math.max(0, index)] / 1e6;
    }
  }

  private static void printHeader() {
    System.out.printf(
        Locale.ROOT,
        "%-7s  %-34s %8s %8s %8s %8s %8s %10s %8s %8s%n",
        "threads",
        "variant",
        "tx/s",
        "us/tx",
        "p50 ms",
        "p99 ms",
        "x (a)",
        "x (a) p50",
        "x (r)",
        "x (b)");
  }

  private static void print(int threadCount, Map<Variant, Timings> timings) {
    Timings base = timings.get(Variant.INSERT_ONLY);
    Timings raw = timings.get(Variant.WITH_RAW_INSERT);
    Timings keyless = timings.get(Variant.WITH_APPEND);
    Map<Variant, Timings> against = new EnumMap<>(Variant.class);
    against.put(Variant.WITH_APPEND, raw);
    against.put(Variant.WITH_KEYED_APPEND, timings.get(Variant.WITH_RAW_KEYED_INSERT));
    against.put(Variant.WITH_RAW_KEYED_INSERT, raw);
    for (Map.Entry<Variant, Timings> e : timings.entrySet()) {
      Timings t = e.getValue();
      System.out.printf(
          Locale.ROOT,
          "%-7d  %-34s %8.0f %8.1f %8.3f %8.3f %7.2fx %9.2fx %8s %8s%n",
          threadCount,
          e.getKey().label,
          t.transactionsPerSecond(),
          t.microsPerTransaction(),
          t.percentileMillis(50),
          t.percentileMillis(99),
          t.microsPerTransaction() / base.microsPerTransaction(),
          t.percentileMillis(50) / base.percentileMillis(50),
          against.containsKey(e.getKey()) ? ratio(t, against.get(e.getKey())) : "",
          e.getKey() == Variant.WITH_KEYED_APPEND ? ratio(t, keyless) : "");
    }
  }

  private static String ratio(Timings t, Timings base) {
    return String.format(
        Locale.ROOT, "%.2fx", t.microsPerTransaction() / base.microsPerTransaction());
  }

  private static String serverVersion(TestDatabase db) throws SQLException {
    try (Connection c = db.open()) {
      DatabaseMetaData meta = c.getMetaData();
      return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
    }
  }
}
