package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.EmbeddedPoller;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A backlog after an outage, drained at {@code OUTBOX_MAX_SEND_RATE}: the whole backlog due at once
 * (as when the destination's probe gets through), real pollers ({@link EmbeddedPoller}, JDBC store,
 * the SDK's SQS client) in invocations as the default schedule starts them (one a minute, each with
 * the default 60 s timeout), sending to the {@link BrokerStandIn} in a child JVM, which records
 * when it accepted each message. Prints, per case, the rate the consumers saw (messages over the
 * time from the first acceptance to the last) against the configured one, the most messages
 * accepted in any one second and in any ten seconds, and how the invocations ended; asserts
 * nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.SendRateDrainBenchmark [ROWS]   default 100000
 * JAVA_OPTS="-Dbench.cases=0x1,2000x1,500x1,1000x2 -Dbench.timeoutSeconds=60
 *            -Dbench.periodSeconds=60 -Dbench.delayMs=15-25 -Dbench.database=postgres|mariadb"
 * </pre>
 *
 * A case {@code RxP} is {@code OUTBOX_MAX_SEND_RATE=R} (0: no cap) with P pollers, {@code
 * OUTBOX_MAX_CONCURRENT_POLLERS=P}, running side by side; the other settings are the defaults. With
 * {@code bench.periodSeconds=0} each invocation starts as soon as the one before ended.
 */
public final class SendRateDrainBenchmark {
  private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

  private SendRateDrainBenchmark() {}

  private record Case(int rate, int pollers) {
    static Case parse(String spec) {
      String[] rp = spec.strip().split("x");
      return new Case(Integer.parseInt(rp[0]), rp.length > 1 ? Integer.parseInt(rp[1]) : 1);
    }

    String rateName() {
      return rate == 0 ? "no cap" : String.format(Locale.ROOT, "%,d/s", rate);
    }
  }

  private record Result(
      Case c,
      long accepted,
      double seconds,
      long mostInASecond,
      long mostInTenSeconds,
      int invocations,
      Map<String, Integer> stopped) {
    double perSecond() {
      return accepted / seconds;
    }
  }

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    List<Case> cases =
        Arrays.stream(System.getProperty("bench.cases", "0x1,2000x1,500x1,1000x2").split(","))
            .map(Case::parse)
            .toList();
    Duration timeout = Duration.ofSeconds(Long.getLong("bench.timeoutSeconds", 60));
    Duration period = Duration.ofSeconds(Long.getLong("bench.periodSeconds", timeout.toSeconds()));
    String[] delay = System.getProperty("bench.delayMs", "15-25").split("-");
    TestDatabase db =
        System.getProperty("bench.database", "postgres").startsWith("maria")
            ? TestEndpoints.mysql()
            : TestEndpoints.postgres();
    List<Result> results = new ArrayList<>();
    try (BrokerStandInProcess broker =
        BrokerStandInProcess.start(
            Duration.ofMillis(Long.parseLong(delay[0])),
            Duration.ofMillis(Long.parseLong(delay[delay.length - 1])))) {
      System.out.printf(
          "%s at %s; %s; %d CPUs; %,d rows due at once a case; invocations of %d s timeout %s%n",
          db.name(),
          db.jdbcUrl(),
          broker.describe(),
          Runtime.getRuntime().availableProcessors(),
          rows,
          timeout.toSeconds(),
          period.isZero()
              ? "one after another"
              : "started every "
                  + period.toSeconds()
                  + " s (each poller's next one after its"
                  + " last ended, and no sooner)");
      for (Case c : cases) {
        Result r = measure(db, broker, c, rows, timeout, period);
        results.add(r);
        System.out.printf(
            "  %s over %d poller(s): %,d messages in %.1f s = %,.1f/s%s; at most %,d in any"
                + " second, %,.1f/s over any 10 s; %d invocations, ended %s%n",
            c.rateName(),
            c.pollers(),
            r.accepted(),
            r.seconds(),
            r.perSecond(),
            c.rate() == 0
                ? ""
                : String.format(
                    " = %.3f of the configured %,d/s", r.perSecond() / c.rate(), c.rate()),
            r.mostInASecond(),
            r.mostInTenSeconds() / 10.0,
            r.invocations(),
            r.stopped());
      }
    }
    System.out.printf(
        "%n| cap (`MaxSendRate`) | pollers | drained in | achieved rate | achieved / cap | most in"
            + " any second | most in any 10 s, per second | invocations |%n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|%n");
    for (Result r : results) {
      System.out.printf(
          "| %s | %d | %.0f s | %,.1f/s | %s | %,d | %,.1f | %d |%n",
          r.c().rateName(),
          r.c().pollers(),
          r.seconds(),
          r.perSecond(),
          r.c().rate() == 0 ? "-" : String.format("%.3f", r.perSecond() / r.c().rate()),
          r.mostInASecond(),
          r.mostInTenSeconds() / 10.0,
          r.invocations());
    }
  }

  private static Result measure(
      TestDatabase db,
      BrokerStandInProcess broker,
      Case c,
      int rows,
      Duration timeout,
      Duration period)
      throws Exception {
    OutboxTables tables = db.createTables("rate");
    List<JdbcConnectionProvider> connections = new ArrayList<>();
    List<EmbeddedPoller> pollers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(c.pollers());
    try (SqsClient sqs = broker.aws().sqs();
        SnsClient sns = broker.aws().sns()) {
      Map<String, String> env = Stores.pollerEnvironment(db, tables);
      env.put(PollerVariables.DEFAULT_DESTINATION.name(), broker.newDestination());
      env.put(PollerVariables.MAX_SEND_RATE.name(), Integer.toString(c.rate()));
      env.put(PollerVariables.MAX_CONCURRENT_POLLERS.name(), Integer.toString(c.pollers()));
      PollerConfig config = PollerConfig.fromEnvironment(env);
      Clock clock = Clock.systemUTC();
      for (int i = 0; i < c.pollers(); i++) {
        JdbcConnectionProvider provider = Stores.connections(db, tables);
        connections.add(provider);
        pollers.add(
            EmbeddedPoller.builder(config, Stores.pollerStore(provider, tables, config))
                .brokers(sns, sqs)
                .clock(clock)
                .random(new SplittableRandom(i))
                .logger(
                    new JsonLogger(
                        "rate",
                        SendRateDrainBenchmark.class,
                        JsonLogger.Level.WARN,
                        System.err,
                        clock))
                .metrics(new EmfMetrics("Bench", "rate", DISCARD, clock))
                .build());
      }
      HistoryLoader.backlog(db, tables, rows);
      broker.newAcceptances(); // what earlier cases left unread
      List<PollSummary> summaries = new ArrayList<>();
      long published = 0;
      long next = System.nanoTime();
      for (int round = 0; published < rows && round < 1_000; round++) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(Duration.ofNanos(wait));
        }
        next = Math.max(next + period.toNanos(), System.nanoTime());
        for (PollSummary s : invokeAll(pollers, pool, timeout)) {
          summaries.add(s);
          published += s.published();
        }
      }
      if (published != rows) {
        throw new IllegalStateException("published " + published + " of " + rows);
      }
      long[] micros =
          broker.newAcceptances().stream().mapToLong(a -> Long.parseLong(a[1])).toArray();
      Arrays.sort(micros);
      Map<String, Integer> stopped = new TreeMap<>();
      summaries.forEach(s -> stopped.merge(String.valueOf(s.stoppedBecause()), 1, Integer::sum));
      return new Result(
          c,
          micros.length,
          (micros[micros.length - 1] - micros[0]) / 1e6,
          mostWithin(micros, 1_000_000),
          mostWithin(micros, 10_000_000),
          summaries.size(),
          stopped);
    } finally {
      pool.shutdownNow();
      pollers.forEach(EmbeddedPoller::close);
      connections.forEach(JdbcConnectionProvider::close);
      db.dropTables(tables);
    }
  }

  /** One invocation of each poller, side by side, each with {@code timeout} to run. */
  private static List<PollSummary> invokeAll(
      List<EmbeddedPoller> pollers, ExecutorService pool, Duration timeout) throws Exception {
    List<Future<PollSummary>> running = new ArrayList<>();
    for (int i = 0; i < pollers.size(); i++) {
      EmbeddedPoller poller = pollers.get(i);
      String id = "rate-" + i + "-" + System.nanoTime();
      long deadline = System.nanoTime() + timeout.toNanos();
      running.add(
          pool.submit(() -> poller.run(() -> (deadline - System.nanoTime()) / 1_000_000, id)));
    }
    List<PollSummary> summaries = new ArrayList<>();
    for (Future<PollSummary> f : running) {
      summaries.add(f.get());
    }
    return summaries;
  }

  /** The most of the sorted {@code micros} within {@code window} microseconds of each other. */
  private static long mostWithin(long[] micros, long window) {
    long most = 0;
    int j = 0;
    for (int i = 0; i < micros.length; i++) {
      while (j < micros.length && micros[j] < micros[i] + window) {
        j++;
      }
      most = Math.max(most, j - i);
    }
    return most;
  }
}
