package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.bench.TimedDataApi.Call;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.sql.Params;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.rdsdata.model.BadRequestException;

/**
 * The same 20,000 pending rows drained (claim, then complete as published, one poller) by the store
 * over JDBC and by the store over the RDS Data API (the test bed's {@code data-api-local} over the
 * same PostgreSQL), side by side in one run, for claims of 100 and 500 rows; and where the Data
 * API's time goes: each kind of Data API call counted and timed, one empty transaction's cost on
 * each carrier, one bare HTTP round trip to the emulator (a commit of a transaction it does not
 * know, refused without touching the database) and one new PostgreSQL connection (which the
 * emulator opens for every transaction). The JDBC drain is the database's share. Then the real
 * poller over the Data API, sequential ({@code OUTBOX_PIPELINE=false}) and pipelined. A harness
 * that prints, not a test that asserts.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.DataApiDrainBenchmark [ROWS]
 * </pre>
 */
public final class DataApiDrainBenchmark {
  private static final int[] CLAIM_SIZES = {100, 500};
  private static final int EMPTY_TRANSACTIONS = 200;
  private static final int CONNECTS = 50;

  private DataApiDrainBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    TestDatabase db = TestEndpoints.postgres();
    DataApiEndpoint endpoint = TestEndpoints.dataApi();
    OutboxTables tables = db.createTables("apidrain");
    String source = tables.prefix() + "source";
    System.out.printf(
        "PostgreSQL at %s, Data API at %s, %d CPUs, %,d rows%n",
        db.jdbcUrl(), endpoint.endpoint(), Runtime.getRuntime().availableProcessors(), rows);
    try (Connection c = db.open();
        JdbcConnectionProvider connections = Stores.connections(db, tables);
        TimedDataApi dataApi = new TimedDataApi(endpoint.client())) {
      c.setAutoCommit(true);
      new HistoryLoader(c, db.dialect(), tables)
          .pending(rows, Instant.now().minus(Duration.ofDays(1)));
      execute(c, "CREATE TABLE " + source + " AS SELECT * FROM " + tables.messages());
      SqlExecutor jdbc = JdbcExecutor.of(connections);
      SqlExecutor overDataApi = endpoint.executor(dataApi).build();

      // Warm-up, not reported: JIT, server-side prepared statements, the emulator.
      reload(c, tables, source, 2_000);
      drain("warm-up", jdbc, tables, 100);
      reload(c, tables, source, 2_000);
      drain("warm-up", overDataApi, tables, 100);

      double http = httpRoundTripMs(dataApi, endpoint);
      double connect = connectMs(db);
      List<String> report = new ArrayList<>();
      for (int claim : CLAIM_SIZES) {
        reload(c, tables, source, rows);
        Drain overJdbc = drain("JDBC store", jdbc, tables, claim);
        reload(c, tables, source, rows);
        dataApi.reset();
        Drain api = drain("Data API store", overDataApi, tables, claim);
        System.out.println(overJdbc);
        System.out.println(api);
        System.out.printf("  Data API calls during the drain:%n");
        for (Call call : Call.values()) {
          if (dataApi.count(call) > 0) {
            System.out.printf(
                "    %-8s %,6d calls %8.2f s  %6.2f ms each%n",
                call,
                dataApi.count(call),
                dataApi.seconds(call),
                1000 * dataApi.seconds(call) / dataApi.count(call));
          }
        }
        long calls = 0;
        for (Call call : Call.values()) {
          calls += dataApi.count(call);
        }
        long others = calls - dataApi.count(Call.BEGIN);
        double otherSeconds = api.seconds() - dataApi.seconds(Call.BEGIN);
        System.out.printf(
            "  where the Data API drain's %.2f s go: the database's work is about the JDBC drain's"
                + " %.2f s; %,d BeginTransaction calls took %.2f s (the emulator opens a new"
                + " PostgreSQL connection for each, ~%.1f ms over JDBC; the Data API keeps its"
                + " connections); the other %,d calls and the client took %.2f s, of which bare"
                + " HTTP round trips (%.1f ms each) make ~%.2f s and the rest is the database, the"
                + " emulator's JSON and its column-metadata look-ups%n",
            api.seconds(),
            overJdbc.seconds(),
            dataApi.count(Call.BEGIN),
            dataApi.seconds(Call.BEGIN),
            connect,
            others,
            otherSeconds,
            http,
            others * http / 1000);
        report.add(
            String.format(
                "claim %d: Data API / JDBC = %.2f (%,.0f vs %,.0f events/s)",
                claim,
                api.perSecond() / overJdbc.perSecond(),
                api.perSecond(),
                overJdbc.perSecond()));
      }

      // The real poller over the Data API, sequential and pipelined (claims, publishing and
      // recordings overlapping: each Data API call is an HTTP round trip the other threads need
      // not wait for).
      Map<String, String> sequential = Map.of(PollerVariables.PIPELINE.name(), "false");
      for (int claim : CLAIM_SIZES) {
        List<DrainResult> pair = new ArrayList<>();
        for (Map<String, String> mode : List.of(sequential, Map.<String, String>of())) {
          reload(c, tables, source, rows);
          DrainResult r =
              PollerRunDrain.run(
                  "poller over the Data API",
                  db,
                  tables,
                  1,
                  claim,
                  mode,
                  config -> {
                    OutboxStore.Builder b = OutboxStore.builder(overDataApi).tables(tables);
                    if (config.publishing().pipeline()) {
                      b.completionsOnSecondConnection();
                    }
                    return b.build();
                  });
          System.out.printf(
              "  %-58s %,9d events in %7.2f s = %,9.0f events/s%n",
              r.name(), r.events(), r.seconds(), r.perSecond());
          pair.add(r);
        }
        report.add(
            String.format(
                "claim %d: poller over the Data API, pipelined / sequential = %.2f"
                    + " (%,.0f vs %,.0f events/s)",
                claim,
                pair.get(1).perSecond() / pair.get(0).perSecond(),
                pair.get(1).perSecond(),
                pair.get(0).perSecond()));
      }

      double jdbcEmpty = emptyTransactionMs(jdbc);
      dataApi.reset();
      double apiEmpty = emptyTransactionMs(overDataApi);
      System.out.printf(
          "%none transaction with one SELECT 1, median of %d: JDBC %.2f ms, Data API %.2f ms"
              + " (begin %.2f, execute %.2f, commit %.2f ms each)%n",
          EMPTY_TRANSACTIONS,
          jdbcEmpty,
          apiEmpty,
          1000 * dataApi.seconds(Call.BEGIN) / dataApi.count(Call.BEGIN),
          1000 * dataApi.seconds(Call.EXECUTE) / dataApi.count(Call.EXECUTE),
          1000 * dataApi.seconds(Call.COMMIT) / dataApi.count(Call.COMMIT));
      System.out.printf(
          "one bare HTTP round trip to the emulator, median of %d: %.2f ms;"
              + " one new PostgreSQL connection, median of %d: %.2f ms%n",
          EMPTY_TRANSACTIONS, http, CONNECTS, connect);
      System.out.println();
      report.forEach(System.out::println);
    } finally {
      try (Connection c = db.open()) {
        execute(c, "DROP TABLE IF EXISTS " + source);
      }
      db.dropTables(tables);
    }
  }

  /** One poller: claim, count, complete as published, until a claim comes back empty. */
  private static Drain drain(String name, SqlExecutor executor, OutboxTables tables, int claim) {
    OutboxStore store = OutboxStore.builder(executor).tables(tables).build();
    store.backlog(Instant.now()); // connected before the clock starts, as a warm Lambda would be
    long events = 0;
    long claimNanos = 0;
    long completeNanos = 0;
    int rounds = 0;
    long start = System.nanoTime();
    while (true) {
      Instant now = Instant.now();
      long t0 = System.nanoTime();
      List<OutboxMessage> claimed =
          store.claim("bench", claim, now, Duration.ofMinutes(5)).messages();
      long t1 = System.nanoTime();
      claimNanos += t1 - t0;
      rounds++;
      if (claimed.isEmpty()) {
        break;
      }
      List<DeliveryOutcome> outcomes = new ArrayList<>(claimed.size());
      claimed.forEach(m -> outcomes.add(new DeliveryOutcome.Published(m.id())));
      events += store.complete("bench", outcomes, now).count(Completion.Result.PUBLISHED);
      completeNanos += System.nanoTime() - t1;
    }
    return new Drain(
        name + ", claim " + claim,
        events,
        (System.nanoTime() - start) / 1e9,
        claimNanos / 1e9,
        completeNanos / 1e9,
        rounds);
  }

  /** A call the emulator refuses in its web layer: the SDK, HTTP and express, no database. */
  private static double httpRoundTripMs(RdsDataClient client, DataApiEndpoint endpoint) {
    double[] ms = new double[EMPTY_TRANSACTIONS];
    for (int i = 0; i < ms.length; i++) {
      long t = System.nanoTime();
      try {
        client.commitTransaction(
            b ->
                b.resourceArn(endpoint.resourceArn())
                    .secretArn(endpoint.secretArn())
                    .transactionId("bm8tc3VjaC10cmFuc2FjdGlvbg=="));
      } catch (BadRequestException expected) {
        // "Transaction ... is not found": refused before any database work, as intended
      }
      ms[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(ms);
    return ms[ms.length / 2];
  }

  private static double connectMs(TestDatabase db) throws Exception {
    double[] ms = new double[CONNECTS];
    for (int i = 0; i < ms.length; i++) {
      long t = System.nanoTime();
      try (Connection c = db.open()) {
        c.isValid(1);
      }
      ms[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(ms);
    return ms[ms.length / 2];
  }

  private static double emptyTransactionMs(SqlExecutor executor) {
    double[] ms = new double[EMPTY_TRANSACTIONS];
    for (int i = 0; i < ms.length; i++) {
      long t = System.nanoTime();
      executor.inTransaction("select 1", s -> s.query("SELECT 1 AS one", Params.none()));
      ms[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(ms);
    return ms[ms.length / 2];
  }

  private static void reload(Connection c, OutboxTables tables, String source, int rows)
      throws Exception {
    execute(c, "DELETE FROM " + tables.messages());
    execute(c, "INSERT INTO " + tables.messages() + " SELECT * FROM " + source + " LIMIT " + rows);
    execute(c, "VACUUM ANALYZE " + tables.messages());
  }

  private static void execute(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private record Drain(
      String name,
      long events,
      double seconds,
      double claimSeconds,
      double completeSeconds,
      int rounds) {
    double perSecond() {
      return events / seconds;
    }

    @Override
    public String toString() {
      return String.format(
          "  %-30s %,7d events in %6.2f s = %,8.0f events/s (claim %.2f s, complete %.2f s,"
              + " %d claims)",
          name, events, seconds, perSecond(), claimSeconds, completeSeconds, rounds);
    }
  }
}
