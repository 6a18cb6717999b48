package dev.lambdaoutbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.EmbeddedPoller;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The poller's throughput against a broker as slow as AWS's: N real pollers ({@link
 * EmbeddedPoller}, JDBC store, the SDK's SQS client) drain a backlog into the {@link
 * BrokerStandIn}, in a child JVM, answering each call after 15-25 ms. Its ceiling is what the calls
 * in flight allow: pollers x {@code OUTBOX_PUBLISH_CONCURRENCY} x 10 entries a call / the mean call
 * latency the stand-in applied. Prints, per case, events/s and its share of that ceiling, the
 * pollers' CPU time per 1,000 events (this JVM, which runs nothing else while it drains), and where
 * the time went (claims, completions, the rest publishing); asserts nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.BrokerLatencyThroughputBenchmark [ROWS]   default 20000
 * JAVA_OPTS="-Dbench.cases=1x8/100,1x8,1x8/1000,2x8/1000,1x8/1000@jar -Dbench.delayMs=15-25
 *            -Dbench.database=postgres|mariadb -Dbench.pollerEnv=OUTBOX_PIPELINE=false
 *            -Dbench.java=$(scripts/lambda-java21) -Dbench.tls=true"
 * </pre>
 *
 * A case {@code PxC/B} is P pollers with {@code OUTBOX_PUBLISH_CONCURRENCY=C} and claims of B
 * ({@code OUTBOX_BATCH_SIZE} and {@code OUTBOX_MAX_BATCH_SIZE} both B); {@code PxC/B..M} claims from
 * B up to M; {@code PxC} keeps the defaults (from 100 up to 1,000). The poller pipelines by default ({@code OUTBOX_PIPELINE}
 * auto): it claims its next batch while it publishes one. With {@code @jar} the pollers are the
 * packaged jar, each in its own process on the Runtime API emulator with Lambda's JVM options
 * ({@code bench.jvmOptions} replaces them) on {@code bench.java} (by default this JVM); their CPU
 * is those processes', and the time in claims and completions is not measured. {@code
 * @jar:-Dname=value} also gives each such process {@code JAVA_TOOL_OPTIONS=-Dname=value} (e.g.
 * {@code -Dhttp.maxConnections=5}: the JDK's own keep-alive, which the poller raises otherwise).
 * With {@code bench.tls} the pollers reach the stand-in over HTTPS, as they reach AWS.
 */
public final class BrokerLatencyThroughputBenchmark {
  private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());
  private static final int WARM_UP_ROWS = 10_000;

  private BrokerLatencyThroughputBenchmark() {}

  /**
   * P pollers, C calls in flight each, the first and the largest claim (0: the defaults), whether
   * the pollers are the packaged jar in their own processes, and what such a process gets in {@code
   * JAVA_TOOL_OPTIONS} (empty: nothing).
   */
  private record Case(
      int pollers, int concurrency, int batch, int maxBatch, boolean packaged, String toolOptions) {
    /**
     * {@code PxC}, {@code PxC/B} (claims of B) or {@code PxC/B..M} (from B up to M), then {@code
     * @jar} or {@code @jar:-Dname=value} if packaged.
     */
    static Case parse(String spec) {
      String[] where = spec.strip().split("@", 2);
      String toolOptions = "";
      if (where.length > 1) {
        String[] jar = where[1].split(":", 2);
        if (!jar[0].equals("jar")) {
          throw new IllegalArgumentException(
              "bench.cases: '" + spec + "' ends in @" + where[1] + "; the only suffix is @jar");
        }
        toolOptions = jar.length > 1 ? jar[1] : "";
      }
      String[] sizes = where[0].split("/");
      String[] pc = sizes[0].split("x");
      String[] claims = sizes.length > 1 ? sizes[1].split("\\.\\.") : new String[] {"0"};
      return new Case(
          Integer.parseInt(pc[0]),
          Integer.parseInt(pc[1]),
          Integer.parseInt(claims[0]),
          Integer.parseInt(claims[claims.length - 1]),
          where.length > 1,
          toolOptions);
    }

    String batchName() {
      if (batch == 0) {
        return "100 growing to 1,000 (default)";
      }
      return batch == maxBatch
          ? String.format("%,d", batch)
          : String.format("%,d growing to %,d", batch, maxBatch);
    }

    /** The claim sizes' settings of this case; none for the defaults. */
    void claimSettings(Map<String, String> env) {
      if (batch > 0) {
        env.put(PollerVariables.BATCH_SIZE.name(), Integer.toString(batch));
        env.put(PollerVariables.MAX_BATCH_SIZE.name(), Integer.toString(maxBatch));
      }
    }

    String pollerName() {
      return !packaged
          ? "in process"
          : toolOptions.isEmpty() ? "packaged jar" : "packaged jar, " + toolOptions;
    }
  }

  private record Result(
      Case c,
      long published,
      double seconds,
      double meanCallMs,
      double entriesPerCall,
      double cpuMsPer1000,
      double claimShare,
      double completeShare,
      double rowsPerClaim,
      long connections,
      String load) {
    double perSecond() {
      return published / seconds;
    }

    /** Calls in flight x 10 entries a call / the mean call latency the stand-in applied. */
    double ceiling() {
      return c.pollers() * c.concurrency() * 10 / (meanCallMs / 1000);
    }
  }

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    List<Case> cases = new ArrayList<>();
    for (String c :
        System.getProperty("bench.cases", "1x8/100,1x8,1x8/1000,1x32,1x32/1000,2x8/1000,4x8/1000")
            .split(",")) {
      cases.add(Case.parse(c));
    }
    String[] delay = System.getProperty("bench.delayMs", "15-25").split("-");
    Map<String, String> settings =
        LatencyBenchmark.settings(System.getProperty("bench.pollerEnv", ""));
    Path java = ColdStartBenchmark.functionJava();
    List<String> jvmOptions = ColdStartBenchmark.functionJvmOptions();
    TestDatabase db =
        System.getProperty("bench.database", "postgres").startsWith("maria")
            ? TestEndpoints.mysql()
            : TestEndpoints.postgres();
    List<Result> results = new ArrayList<>();
    boolean tls = Boolean.getBoolean("bench.tls");
    try (BrokerStandInProcess broker =
        BrokerStandInProcess.start(
            Duration.ofMillis(Long.parseLong(delay[0])),
            Duration.ofMillis(Long.parseLong(delay[delay.length - 1])),
            tls)) {
      trust(broker.clientToolOptions()); // the in-process pollers' clients, before their first call
      System.out.printf(
          "%s at %s; %s; %d CPUs; %,d rows a case; poller settings beyond the defaults: %s;"
              + " packaged pollers on %s %s%n",
          db.name(),
          db.jdbcUrl(),
          broker.describe(),
          Runtime.getRuntime().availableProcessors(),
          rows,
          settings.isEmpty() ? "none" : settings,
          java,
          jvmOptions);
      CpuUse cpu = CpuUse.withServerOn(broker.port().orElseThrow());
      for (Case c : cases) {
        Result r =
            c.packaged()
                ? measurePackaged(db, broker, cpu, c, rows, settings, java, jvmOptions)
                : measure(db, broker, cpu, c, rows, settings);
        System.out.printf(
            "  %d poller(s) %s x %2d calls in flight, batch %s: %,d events in %.2f s = %,.0f/s, %.2f"
                + " of the ceiling %,.0f/s (call %.1f ms, %.1f entries a call); CPU %.0f ms per"
                + " 1,000 events; claims %s, completions %s of the pollers' time; %.0f rows a"
                + " claim; %,d connections opened to the broker; %s%n",
            c.pollers(),
            c.pollerName(),
            c.concurrency(),
            c.batchName(),
            r.published(),
            r.seconds(),
            r.perSecond(),
            r.perSecond() / r.ceiling(),
            r.ceiling(),
            r.meanCallMs(),
            r.entriesPerCall(),
            r.cpuMsPer1000(),
            percent(r.claimShare()),
            percent(r.completeShare()),
            r.rowsPerClaim(),
            r.connections(),
            r.load());
        results.add(r);
      }
    }
    System.out.printf(
        "%n| pollers | poller | calls in flight | batch | events/s | ceiling events/s | share of"
            + " ceiling | against the first case | call ms | entries a call | rows a claim |"
            + " poller CPU ms / 1,000 events | claims | completions | connections opened |%n"
            + "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n");
    for (Result r : results) {
      System.out.printf(
          "| %d | %s | %d | %s | %,.0f | %,.0f | %.2f | %.2fx | %.1f | %.1f | %.0f | %.0f | %s | %s"
              + " | %,d |%n",
          r.c().pollers(),
          r.c().pollerName(),
          r.c().concurrency(),
          r.c().batchName(),
          r.perSecond(),
          r.ceiling(),
          r.perSecond() / r.ceiling(),
          r.perSecond() / results.get(0).perSecond(),
          r.meanCallMs(),
          r.entriesPerCall(),
          r.rowsPerClaim(),
          r.cpuMsPer1000(),
          percent(r.claimShare()),
          percent(r.completeShare()),
          r.connections());
    }
  }

  /** Sets the {@code -Dname=value} system properties of {@code toolOptions} in this JVM. */
  private static void trust(String toolOptions) {
    for (String option : toolOptions.split(" ")) {
      int eq = option.indexOf('=');
      if (option.startsWith("-D") && eq > 2) {
        System.setProperty(option.substring(2, eq), option.substring(eq + 1));
      }
    }
  }

  /** "37%", or "-" where it was not measured (a packaged poller's store is out of reach). */
  private static String percent(double share) {
    return Double.isNaN(share) ? "-" : String.format("%.0f%%", share * 100);
  }

  /**
   * A case through the packaged jar: P poller processes on the Runtime API emulator, each sent
   * invocations marked as a fan-out's (each drains and stops) until the rows are published. CPU is
   * the poller processes' own; the time in claims and completions is not measured.
   */
  private static Result measurePackaged(
      TestDatabase db,
      BrokerStandInProcess broker,
      CpuUse cpu,
      Case c,
      int rows,
      Map<String, String> settings,
      Path java,
      List<String> jvmOptions)
      throws Exception {
    OutboxTables tables = db.createTables("tput");
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, broker.aws());
    env.put(PollerVariables.DEFAULT_DESTINATION.name(), broker.newDestination());
    env.put(PollerVariables.PUBLISH_CONCURRENCY.name(), Integer.toString(c.concurrency()));
    env.put("OUTBOX_LOG_LEVEL", "WARN");
    env.putAll(settings);
    c.claimSettings(env);
    String toolOptions = (broker.clientToolOptions() + " " + c.toolOptions()).strip();
    if (!toolOptions.isEmpty()) {
      env.put("JAVA_TOOL_OPTIONS", toolOptions);
    }
    Duration timeout = Duration.ofMinutes(15);
    try (PackagedPollers pollers =
        new PackagedPollers(db, tables, env, java, jvmOptions, c.pollers(), timeout, timeout)) {
      pollers.load(WARM_UP_ROWS * c.pollers());
      drainPackaged(pollers, c.pollers(), WARM_UP_ROWS * c.pollers());
      pollers.load(rows);
      BrokerStandInProcess.Stats before = broker.stats();
      CpuUse.Sample from = cpu.sample();
      long pollerCpuFrom = pollers.cpuNanos();
      long start = System.nanoTime();
      List<JsonNode> answers = drainPackaged(pollers, c.pollers(), rows);
      double seconds = (System.nanoTime() - start) / 1e9;
      long pollerCpuTo = pollers.cpuNanos();
      CpuUse.Sample to = cpu.sample();
      BrokerStandInProcess.Stats calls = broker.stats().since(before);
      pollers.requireAllRunning();
      long published = answers.stream().mapToLong(j -> j.path("published").asLong()).sum();
      if (published != rows) {
        throw new IllegalStateException("published " + published + " of " + rows + ": " + answers);
      }
      long rounds = answers.stream().mapToLong(j -> j.path("rounds").asLong()).sum();
      return new Result(
          c,
          published,
          seconds,
          calls.meanCallMillis(),
          calls.messages() / (double) Math.max(1, calls.calls()),
          pollerCpuFrom < 0 || pollerCpuTo < 0
              ? Double.NaN
              : (pollerCpuTo - pollerCpuFrom) / 1e6 / published * 1000,
          Double.NaN,
          Double.NaN,
          published / (double) Math.max(1, rounds),
          calls.connections(),
          cpu.describe(from, to) + " (JVM: this one, not the pollers')");
    } finally {
      db.dropTables(tables);
    }
  }

  /** Sends each packaged poller an invocation until {@code rows} are published; the answers. */
  private static List<JsonNode> drainPackaged(PackagedPollers pollers, int n, int rows)
      throws Exception {
    List<JsonNode> answers = new ArrayList<>();
    long published = 0;
    for (int round = 0; round < 10 && published < rows; round++) {
      for (JsonNode answer : pollers.drainEach(n)) {
        answers.add(answer);
        published += answer.path("published").asLong();
      }
    }
    return answers;
  }

  private static Result measure(
      TestDatabase db,
      BrokerStandInProcess broker,
      CpuUse cpu,
      Case c,
      int rows,
      Map<String, String> settings)
      throws Exception {
    OutboxTables tables = db.createTables("tput");
    List<JdbcConnectionProvider> connections = new ArrayList<>();
    List<EmbeddedPoller> pollers = new ArrayList<>();
    List<TimedStore> stores = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(c.pollers());
    try (SqsClient sqs = broker.aws().sqs();
        SnsClient sns = broker.aws().sns()) {
      Map<String, String> env = Stores.pollerEnvironment(db, tables);
      env.put(PollerVariables.DEFAULT_DESTINATION.name(), broker.newDestination());
      env.put(PollerVariables.PUBLISH_CONCURRENCY.name(), Integer.toString(c.concurrency()));
      env.putAll(settings);
      c.claimSettings(env);
      PollerConfig config = PollerConfig.fromEnvironment(env);
      Clock clock = Clock.systemUTC();
      for (int i = 0; i < c.pollers(); i++) {
        JdbcConnectionProvider provider = Stores.connections(db, tables);
        connections.add(provider);
        TimedStore timed = new TimedStore(Stores.pollerStore(provider, tables, config));
        stores.add(timed);
        pollers.add(
            EmbeddedPoller.builder(config, timed)
                .brokers(sns, sqs)
                .clock(clock)
                .random(new SplittableRandom(i))
                .logger(
                    new JsonLogger(
                        "tput",
                        BrokerLatencyThroughputBenchmark.class,
                        JsonLogger.Level.WARN,
                        System.err,
                        clock))
                .metrics(new EmfMetrics("Bench", "tput", DISCARD, clock))
                .build());
      }
      // Warm-up: every poller has claimed and published (JIT, connections, the SDK's clients).
      HistoryLoader.backlog(db, tables, WARM_UP_ROWS * c.pollers());
      drain(pollers, pool, WARM_UP_ROWS * c.pollers());
      stores.forEach(
          s -> {
            s.claimNanos.set(0);
            s.completeNanos.set(0);
            s.claims.set(0);
          });
      HistoryLoader.backlog(db, tables, rows);
      BrokerStandInProcess.Stats before = broker.stats();
      CpuUse.Sample from = cpu.sample();
      long start = System.nanoTime();
      List<PollSummary> summaries = drain(pollers, pool, rows);
      double seconds = (System.nanoTime() - start) / 1e9;
      CpuUse.Sample to = cpu.sample();
      BrokerStandInProcess.Stats calls = broker.stats().since(before);
      long published = published(summaries);
      if (published != rows) {
        throw new IllegalStateException(
            "published " + published + " of " + rows + ": " + summaries);
      }
      double pollerNanos = seconds * 1e9 * c.pollers();
      long claims = stores.stream().mapToLong(s -> s.claims.get()).sum();
      return new Result(
          c,
          published,
          seconds,
          calls.meanCallMillis(),
          calls.messages() / (double) Math.max(1, calls.calls()),
          (to.jvmNanos() - from.jvmNanos()) / 1e6 / published * 1000,
          stores.stream().mapToLong(s -> s.claimNanos.get()).sum() / pollerNanos,
          stores.stream().mapToLong(s -> s.completeNanos.get()).sum() / pollerNanos,
          published / (double) Math.max(1, claims),
          calls.connections(),
          cpu.describe(from, to));
    } finally {
      pool.shutdownNow();
      pollers.forEach(EmbeddedPoller::close);
      connections.forEach(JdbcConnectionProvider::close);
      db.dropTables(tables);
    }
  }

  private static long published(List<PollSummary> summaries) {
    return summaries.stream().mapToLong(PollSummary::published).sum();
  }

  /**
   * Runs every poller, side by side, until {@code rows} are published: a poller short beside
   * another's locks stops as drained, and the next invocations take the rest.
   */
  private static List<PollSummary> drain(
      List<EmbeddedPoller> pollers, ExecutorService pool, int rows) throws Exception {
    List<PollSummary> summaries = new ArrayList<>();
    for (int round = 0; round < 10 && published(summaries) < rows; round++) {
      summaries.addAll(invokeAll(pollers, pool));
    }
    return summaries;
  }

  private static List<PollSummary> invokeAll(List<EmbeddedPoller> pollers, ExecutorService pool)
      throws Exception {
    List<Future<PollSummary>> running = new ArrayList<>();
    for (int i = 0; i < pollers.size(); i++) {
      EmbeddedPoller poller = pollers.get(i);
      String id = "tput-" + i + "-" + System.nanoTime();
      running.add(pool.submit(() -> poller.run(() -> 15 * 60 * 1000L, id)));
    }
    List<PollSummary> summaries = new ArrayList<>();
    for (Future<PollSummary> f : running) {
      summaries.add(f.get());
    }
    return summaries;
  }
}
