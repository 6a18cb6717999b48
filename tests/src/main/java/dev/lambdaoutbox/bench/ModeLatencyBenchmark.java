package dev.lambdaoutbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * Commit-to-broker latency of the three ways to run the poller, through the packaged poller jar
 * under AWS's runtime interface client on the Runtime API emulator (two execution environments),
 * publishing to the {@link BrokerStandIn} (child JVM, 15-25 ms a call):
 *
 * <ul>
 *   <li>{@code schedule}: a scheduled invocation every period that drains and stops ({@code
 *       OUTBOX_POLL_INTERVAL_MS=0});
 *   <li>{@code interval}: the same schedule, each run polling every {@code OUTBOX_POLL_INTERVAL_MS}
 *       (100) until close to its timeout (the period);
 *   <li>{@code wake}: the schedule of {@code schedule}, and the application's {@link PollerWaker}
 *       invoking the poller (the SDK's Lambda client on the emulator's {@code Invoke} API) after a
 *       commit, then none for its quiet period ({@link PollerWaker#DEFAULT_QUIET_PERIOD}); a woken
 *       run lingers through the quiet period, and {@code OUTBOX_WAKE_LINGER_MS} (2 s) past the last
 *       row it found.
 *   <li>{@code wake-each}: as {@code wake} with no quiet period and {@code
 *       OUTBOX_WAKE_LINGER_MS=0}: a wake-up after each commit (at most one per 100 ms per waker),
 *       each woken run draining once.
 *   <li>{@code wake-each-linger}: a wake-up after each commit, a woken run lingering {@code
 *       OUTBOX_WAKE_LINGER_MS} (2 s) past the last row it found, one at a time.
 * </ul>
 *
 * Writers commit at a steady rate (open loop) across {@code bench.periods} periods; latency is the
 * stand-in's answer to the call that carried an event minus the event's commit (one clock). The
 * schedule is shortened to {@code bench.periodSeconds} (10) with each run's timeout equal to the
 * period, and the publish timeout and safety margin (which end a run early) scaled alike: 1.58 s
 * and 0.5 s against 10 s stand for 10 s and 3 s against 60 s. Latencies that wait for the schedule
 * scale with the period (x6 for {@code rate(1 minute)}). Also prints invocations and their summed
 * run durations per mode, the figures the cost table is computed from, and writes the distributions
 * as Markdown histograms to {@code bench.histograms} (default docs/latency-histograms.md); asserts
 * nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.ModeLatencyBenchmark
 * JAVA_OPTS="-Dbench.modes=wake,schedule,interval -Dbench.rates=0,1,10,100,1000 -Dbench.periods=3
 *            -Dbench.periodSeconds=10 -Dbench.database=postgres|mariadb -Dbench.histograms=FILE
 *            -Dbench.pollerEnv=OUTBOX_BATCH_SIZE=1000;NAME=value"
 * </pre>
 *
 * {@code bench.pollerEnv} adds settings to the pollers' environment (after the mode's own). {@code
 * bench.wakers} (1) is the number of application processes waking the poller, each a {@link
 * PollerWaker} of its own, the commits spread over them in turn; {@code bench.quietMs} sets the
 * {@code wake} mode's quiet period. Wake-ups in numbers and per second are printed for each cell.
 *
 * <pre>
 * JAVA_OPTS="-Dbench.modes=wake-each,wake-each-linger,wake -Dbench.rates=10 -Dbench.wakers=10
 *            -Dbench.periods=6"
 * </pre>
 */
public final class ModeLatencyBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ENVIRONMENTS = 2;
  private static final int WRITERS = 8;

  private ModeLatencyBenchmark() {}

  /** One measured mode and rate. */
  record Cell(
      String mode,
      double rate,
      int measured,
      int arrived,
      Percentiles latency,
      double[] sorted,
      int scheduled,
      int woken,
      int failed,
      long durationMs,
      double seconds) {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    List<String> modes =
        List.of(System.getProperty("bench.modes", "wake,schedule,interval").split(","));
    double[] rates =
        Arrays.stream(System.getProperty("bench.rates", "0,1,10,100,1000").split(","))
            .mapToDouble(s -> Double.parseDouble(s.strip()))
            .toArray();
    int periods = Integer.getInteger("bench.periods", 3);
    Duration period = Duration.ofSeconds(Integer.getInteger("bench.periodSeconds", 10));
    Path histograms =
        PackagedFunction.projectRoot()
            .resolve(System.getProperty("bench.histograms", "docs/latency-histograms.md"));
    Map<String, String> settings =
        LatencyBenchmark.settings(System.getProperty("bench.pollerEnv", ""));
    TestDatabase db =
        System.getProperty("bench.database", "postgres").startsWith("maria")
            ? TestEndpoints.mysql()
            : TestEndpoints.postgres();
    List<Cell> cells = new ArrayList<>();
    try (BrokerStandInProcess broker =
        BrokerStandInProcess.start(Duration.ofMillis(15), Duration.ofMillis(25))) {
      System.out.printf(
          "%s; %s; packaged poller, %d execution environments on the Runtime API emulator;"
              + " schedule every %d s (timeout %d s), %d periods a cell; %d CPUs; poller settings"
              + " beyond the mode's: %s%n",
          db.name(),
          broker.describe(),
          ENVIRONMENTS,
          period.toSeconds(),
          period.toSeconds(),
          periods,
          Runtime.getRuntime().availableProcessors(),
          settings.isEmpty() ? "none" : settings);
      for (String mode : modes) {
        try (ModeFleet fleet = new ModeFleet(db, broker, mode.strip(), period, settings)) {
          for (double rate : rates) {
            if (rate == 0 && !mode.strip().equals("wake")) {
              continue; // at 0 events/s only the wake-up mode could differ from the schedule
            }
            Cell cell = fleet.measure(rate, periods);
            print(cell);
            cells.add(cell);
          }
        }
      }
    }
    report(cells);
    LatencyHistograms.write(histograms, cells, db.name(), period);
    System.out.println("histograms: " + histograms);
  }

  private static void print(Cell c) {
    System.out.printf(
        "  %-8s %,6.0f/s: %,d events, %,d arrived; commit->broker ms p50/p95/p99/max %s;"
            + " %d scheduled + %d woken invocations (%.2f woken/s, %d failed), %,d ms of runs in"
            + " %.0f s%n",
        c.mode(),
        c.rate(),
        c.measured(),
        c.arrived(),
        c.latency().brief(),
        c.scheduled(),
        c.woken(),
        c.woken() / c.seconds(),
        c.failed(),
        c.durationMs(),
        c.seconds());
  }

  private static void report(List<Cell> cells) {
    System.out.printf(
        "%n| mode | events/s | events | arrived | p50 ms | p99 ms | max ms | invocations per"
            + " scheduled run | run seconds per scheduled run | woken invocations per second |%n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n");
    for (Cell c : cells) {
      double periods = Math.max(1, c.scheduled());
      System.out.printf(
          "| %s | %,.0f | %,d | %,d | %.0f | %.0f | %.0f | %.1f | %.2f | %.2f |%n",
          c.mode(),
          c.rate(),
          c.measured(),
          c.arrived(),
          c.latency().p50(),
          c.latency().p99(),
          c.latency().max(),
          (c.scheduled() + c.woken()) / periods,
          c.durationMs() / 1000.0 / periods,
          c.woken() / c.seconds());
    }
  }

  /** The packaged poller in {@link #ENVIRONMENTS} processes for one mode, on tables of its own. */
  private static final class ModeFleet implements AutoCloseable {
    private final TestDatabase db;
    private final BrokerStandInProcess broker;
    private final String mode;
    private final Duration period;
    private final OutboxTables tables;
    private final LambdaRuntimeEmulator emulator;
    private final List<PackagedFunction> functions = new ArrayList<>();
    private final LambdaClient lambda;
    private final List<PollerWaker> wakers = new ArrayList<>();
    private final AtomicLong commits = new AtomicLong();
    private final String scheduledEvent;

    ModeFleet(
        TestDatabase db,
        BrokerStandInProcess broker,
        String mode,
        Duration period,
        Map<String, String> settings)
        throws Exception {
      this.db = db;
      this.broker = broker;
      this.mode = mode;
      this.period = period;
      this.tables = db.createTables("mode");
      this.emulator = new LambdaRuntimeEmulator(period, OutboxFunction.POLLER.asyncInvokeConfig());
      this.scheduledEvent =
          Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
      Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, broker.aws());
      env.put("OUTBOX_DEFAULT_DESTINATION", broker.newDestination());
      env.put("OUTBOX_LOG_LEVEL", "WARN");
      // A cold JVM's first login (SCRAM in interpreted code) takes seconds on a loaded machine.
      env.put("OUTBOX_DB_CONNECT_TIMEOUT_MS", "30000");
      env.put("OUTBOX_PUBLISH_TIMEOUT_MS", "1580");
      env.put("OUTBOX_SAFETY_MARGIN_MS", "500");
      env.put(
          "OUTBOX_POLL_INTERVAL_MS",
          switch (mode) {
            case "interval" -> "100";
            case "schedule", "wake", "wake-each", "wake-each-linger" -> "0";
            default ->
                throw new IllegalArgumentException(
                    "bench.modes: '"
                        + mode
                        + "' is none of wake, wake-each, wake-each-linger, schedule, interval");
          });
      if (mode.equals("wake-each")) {
        env.put("OUTBOX_WAKE_LINGER_MS", "0");
      }
      env.putAll(settings);
      for (int i = 0; i < ENVIRONMENTS; i++) {
        functions.add(
            PackagedFunction.start(
                OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, emulator));
      }
      this.lambda = LambdaInvokeStandIn.client(URI.create(emulator.invokeEndpoint()));
      if (mode.startsWith("wake")) {
        Duration quiet =
            mode.equals("wake")
                ? Duration.ofMillis(
                    Long.getLong("bench.quietMs", PollerWaker.DEFAULT_QUIET_PERIOD.toMillis()))
                : Duration.ZERO;
        for (int i = 0, n = Integer.getInteger("bench.wakers", 1); i < n; i++) {
          wakers.add(
              PollerWaker.builder()
                  .functionName("outbox-poller:live")
                  .lambdaClient(lambda)
                  .quietPeriod(quiet)
                  .build());
        }
      }
      // Warm environments that have published, as a busy schedule leaves them: cold starts and the
      // SDK's first call are not under test. Two rounds, both environments draining a backlog.
      for (int round = 0; round < 2; round++) {
        try (Connection c = db.open()) {
          c.setAutoCommit(true);
          new HistoryLoader(c, db.dialect(), tables)
              .pending(4_000, Instant.now().minus(Duration.ofDays(1)));
        }
        List<CompletableFuture<LambdaRuntimeEmulator.Result>> warm = new ArrayList<>();
        for (int i = 0; i < ENVIRONMENTS; i++) {
          warm.add(emulator.submit("{\"outboxWakeUp\":true}", Duration.ofSeconds(60)));
        }
        StringBuilder published = new StringBuilder();
        for (CompletableFuture<LambdaRuntimeEmulator.Result> f : warm) {
          published.append(' ').append(summary(f).path("published").asInt());
        }
        System.out.println("  " + mode + " warm-up round " + round + ", published:" + published);
      }
    }

    Cell measure(double rate, int periods) throws Exception {
      EventTimes times = new EventTimes();
      int wokenBefore = emulator.invokedByFunctions().size();
      List<CompletableFuture<LambdaRuntimeEmulator.Result>> scheduled = new ArrayList<>();
      Thread schedule =
          Thread.ofPlatform()
              .name("schedule")
              .start(
                  () -> {
                    try {
                      for (long next = System.nanoTime(); ; next += period.toNanos()) {
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                          TimeUnit.NANOSECONDS.sleep(wait);
                        }
                        synchronized (scheduled) {
                          scheduled.add(emulator.submit(scheduledEvent, period));
                        }
                      }
                    } catch (InterruptedException e) {
                      // The cell is over: no more scheduled invocations.
                    }
                  });
      long start = System.nanoTime();
      double seconds = periods * period.toSeconds();
      times.measuring(true);
      if (rate > 0) {
        try (OpenLoopWriters writers =
            new OpenLoopWriters(
                db,
                OutboxWriter.builder().tables(tables).build(),
                WRITERS,
                times,
                this::afterCommit)) {
          writers.run(rate, seconds);
        }
      } else {
        Thread.sleep((long) (seconds * 1000));
      }
      times.measuring(false);
      // Until every event is at the broker: an event committed just after a run waits for the next.
      broker.collect(null, times, period.multipliedBy(3).plusSeconds(30));
      double elapsed = (System.nanoTime() - start) / 1e9;
      schedule.interrupt();
      schedule.join();
      long durationMs = 0;
      int failed = 0;
      List<CompletableFuture<LambdaRuntimeEmulator.Result>> scheduledRuns;
      synchronized (scheduled) {
        scheduledRuns = List.copyOf(scheduled);
      }
      List<CompletableFuture<LambdaRuntimeEmulator.Result>> runs = new ArrayList<>(scheduledRuns);
      List<CompletableFuture<LambdaRuntimeEmulator.Result>> all = emulator.invokedByFunctions();
      List<CompletableFuture<LambdaRuntimeEmulator.Result>> woken =
          List.copyOf(all.subList(wokenBefore, all.size()));
      runs.addAll(woken);
      for (CompletableFuture<LambdaRuntimeEmulator.Result> f : runs) {
        LambdaRuntimeEmulator.Result r = f.get(period.toSeconds() + 120, TimeUnit.SECONDS);
        if (r.failed()) {
          failed++; // e.g. a database connection timing out on a loaded machine: counted, shown
          if (failed == 1) {
            System.out.println("    first failed invocation: " + r.errorType() + " " + r.body());
          }
        } else {
          JsonNode summary = JSON.readTree(r.body());
          durationMs += summary.path("durationMs").asLong();
          if (Boolean.getBoolean("bench.verbose")) {
            System.out.println("    " + summary);
          }
        }
      }
      double[] sorted = times.commitToAcceptedMillis();
      return new Cell(
          mode,
          rate,
          times.measured(),
          times.acceptedCount(),
          Percentiles.of(sorted),
          sorted,
          scheduledRuns.size(),
          woken.size(),
          failed,
          durationMs,
          elapsed);
    }

    /** Wakes the poller as the application process of this commit: the wakers take turns. */
    private void afterCommit() {
      if (!wakers.isEmpty()) {
        wakers.get((int) (commits.getAndIncrement() % wakers.size())).afterCommit();
      }
    }

    private JsonNode summary(CompletableFuture<LambdaRuntimeEmulator.Result> f) throws Exception {
      LambdaRuntimeEmulator.Result r = f.get(period.toSeconds() + 120, TimeUnit.SECONDS);
      if (r.failed()) {
        StringBuilder out = new StringBuilder();
        for (PackagedFunction p : functions) {
          out.append(p.output());
        }
        throw new IllegalStateException(
            "an invocation failed: " + r.errorType() + " " + r.body() + "\n" + out);
      }
      return JSON.readTree(r.body());
    }

    @Override
    public void close() throws Exception {
      for (PollerWaker waker : wakers) {
        waker.close();
      }
      lambda.close();
      for (PackagedFunction f : functions) {
        f.close();
      }
      emulator.close();
      db.dropTables(tables);
    }
  }
}
