package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Commit-to-publish latency: how long after an application's commit its event reaches the broker.
 * Writers commit events through {@link OutboxWriter} at a steady, open-loop rate ({@link
 * OpenLoopWriters}) while the real poller runs in its low-latency mode ({@code
 * OUTBOX_POLL_INTERVAL_MS}; {@link LatencyPollers}); afterwards a consumer reads every message and
 * takes, per event, the broker's acceptance time minus the commit time. Prints p50/p95/p99/max per
 * broker, rate and poll interval, and where the time went; asserts nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.LatencyBenchmark
 * JAVA_OPTS="-Dbench.rates=100,1000,5000 -Dbench.intervals=100,250
 *            -Dbench.brokers=localstack,elasticmq,standin,counting -Dbench.mode=long|schedule
 *            -Dbench.seconds=30 -Dbench.warmup=5 -Dbench.writers=16 -Dbench.database=postgres|mariadb
 *            -Dbench.pollerEnv=OUTBOX_BATCH_SIZE=1000;OUTBOX_PUBLISH_CONCURRENCY=16"
 * </pre>
 *
 * <ul>
 *   <li>{@code localstack}: the test bed's SQS (LocalStack's runtime, shared);
 *   <li>{@code elasticmq}: ElasticMQ in a child JVM on a free loopback port ({@link ElasticMq});
 *   <li>{@code standin}: the {@link BrokerStandIn} in a child JVM, answering each call after 15-25
 *       ms as SQS does;
 *   <li>{@code counting}: no broker; the poller's publish call is the end point ({@link
 *       CountingBroker}).
 * </ul>
 *
 * Mode {@code long} runs one invocation across the measurement; {@code schedule} starts one every
 * 60 s with 60 s each, as {@code rate(1 minute)} with the template's default timeout does (give it
 * {@code -Dbench.seconds=180} or more).
 */
public final class LatencyBenchmark {
  /** The target: p99 at most this at 1,000 events/s with a 100 ms interval. */
  private static final double TARGET_P99_MS = 300;

  private static final Duration TAIL = Duration.ofSeconds(3);

  private LatencyBenchmark() {}

  /** One measured combination. */
  private record Cell(
      String broker,
      double rate,
      long intervalMs,
      String mode,
      int measured,
      int arrived,
      long transactions,
      Percentiles latency,
      Percentiles claimWait,
      Percentiles claimToAccepted,
      Percentiles claimCall,
      Percentiles publishCall,
      Percentiles completeCall,
      Percentiles writerLag,
      double rowsPerClaim,
      String cpu) {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    double[] rates = doubles(System.getProperty("bench.rates", "100,1000,5000"));
    double[] intervals = doubles(System.getProperty("bench.intervals", "100,250"));
    List<String> brokers =
        List.of(System.getProperty("bench.brokers", "localstack,counting").split(","));
    String mode = System.getProperty("bench.mode", "long");
    double seconds = Double.parseDouble(System.getProperty("bench.seconds", "30"));
    double warmup = Double.parseDouble(System.getProperty("bench.warmup", "5"));
    int writers = Integer.getInteger("bench.writers", 16);
    Map<String, String> settings = settings(System.getProperty("bench.pollerEnv", ""));
    TestDatabase db =
        System.getProperty("bench.database", "postgres").startsWith("maria")
            ? TestEndpoints.mysql()
            : TestEndpoints.postgres();
    System.out.printf(
        "%s at %s, %d CPUs; %s mode; %.0f s measured after %.0f s warm-up per cell; %d writer"
            + " connections; poller settings beyond the defaults: %s%n",
        db.name(),
        db.jdbcUrl(),
        Runtime.getRuntime().availableProcessors(),
        mode,
        seconds,
        warmup,
        writers,
        settings.isEmpty() ? "none" : settings);
    List<Cell> cells = new ArrayList<>();
    for (String name : brokers) {
      try (LatencyBroker broker = broker(name.strip())) {
        System.out.println("broker: " + broker.describe());
        for (double rate : rates) {
          for (double interval : intervals) {
            Cell cell =
                measure(
                    db,
                    broker,
                    name.strip(),
                    rate,
                    (long) interval,
                    settings,
                    mode,
                    seconds,
                    warmup,
                    writers);
            print(cell);
            cells.add(cell);
          }
        }
      }
    }
    report(cells);
  }

  private static LatencyBroker broker(String name) throws Exception {
    return switch (name) {
      case "localstack" -> new SqsBroker("LocalStack (test bed)", TestEndpoints.aws(), null);
      case "elasticmq" -> {
        ElasticMq server = ElasticMq.start().warmUp(40_000);
        yield new SqsBroker("ElasticMQ 1.7.1 (child JVM)", server.endpoint(), server);
      }
      case "counting" -> new CountingBroker();
      case "standin" -> BrokerStandInProcess.start(Duration.ofMillis(15), Duration.ofMillis(25));
      default ->
          throw new IllegalArgumentException(
              "bench.brokers: '" + name + "' is none of localstack, elasticmq, standin, counting");
    };
  }

  private static Cell measure(
      TestDatabase db,
      LatencyBroker broker,
      String brokerName,
      double rate,
      long intervalMs,
      Map<String, String> settings,
      String mode,
      double seconds,
      double warmup,
      int writerCount)
      throws Exception {
    OutboxTables tables = db.createTables("lat");
    String destination = broker.newDestination();
    EventTimes times = new EventTimes();
    AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
    CpuUse cpu = CpuUse.withServerOn(broker.port().orElse(0));
    try (LatencyPollers pollers =
            new LatencyPollers(
                db, tables, broker, destination, Duration.ofMillis(intervalMs), settings, times);
        OpenLoopWriters writers =
            new OpenLoopWriters(
                db, OutboxWriter.builder().tables(tables).build(), writerCount, times)) {
      Thread poller =
          Thread.ofPlatform()
              .name("invocations")
              .start(
                  () -> {
                    try {
                      if (mode.equals("schedule")) {
                        pollers.runScheduled(
                            Duration.ofMinutes(1), Duration.ofMinutes(1), stopAt::get);
                      } else {
                        pollers.runLong(stopAt::get);
                      }
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  });
      CpuUse.Sample[] window = new CpuUse.Sample[2];
      Thread switcher =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      Thread.sleep((long) (warmup * 1000));
                      window[0] = cpu.sample();
                      times.measuring(true);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  });
      long transactions = writers.run(rate, warmup + seconds);
      times.measuring(false);
      window[1] = cpu.sample();
      switcher.join();
      // Polling goes on until every measured event was handed to the broker (or 5 minutes pass):
      // a backlog left behind is part of what is measured.
      long drainDeadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (times.handedToBroker() < times.measured() && System.nanoTime() < drainDeadline) {
        Thread.sleep(200);
      }
      stopAt.set(System.currentTimeMillis() + TAIL.toMillis());
      poller.join();
      broker.collect(destination, times, Duration.ofMinutes(5));
      List<PollSummary> summaries = pollers.summaries();
      int released = summaries.stream().mapToInt(PollSummary::released).sum();
      double rowsPerClaim =
          summaries.stream().mapToInt(PollSummary::claimed).sum()
              / (double) Math.max(1, summaries.stream().mapToInt(PollSummary::rounds).sum());
      if (released > 0) {
        System.out.printf("  note: %,d messages released, not attempted in time%n", released);
      }
      return new Cell(
          brokerName,
          rate,
          intervalMs,
          mode,
          times.measured(),
          times.acceptedCount(),
          transactions,
          Percentiles.of(times.commitToAcceptedMillis()),
          Percentiles.of(times.commitToClaimMillis()),
          Percentiles.of(times.claimToAcceptedMillis()),
          Percentiles.of(times.claimCallMillis()),
          Percentiles.of(times.publishCallMillis()),
          Percentiles.of(times.completeCallMillis()),
          Percentiles.of(times.writerLagMillis()),
          rowsPerClaim,
          cpu.describe(window[0], window[1]));
    } finally {
      broker.drop(destination);
      db.dropTables(tables);
    }
  }

  private static void print(Cell c) {
    System.out.printf(
        "  %-10s %,6.0f/s every %4d ms: %,7d events, %,7d arrived; commit->published ms p50/p95/p99/max"
            + " %s; claim wait %s; claim->published %s; claim call %s; publish call %s; complete"
            + " call %s; writer lag %s; %.1f rows per claim (warm-up included); CPU %s%n",
        c.broker(),
        c.rate(),
        c.intervalMs(),
        c.measured(),
        c.arrived(),
        c.latency().brief(),
        c.claimWait().brief(),
        c.claimToAccepted().brief(),
        c.claimCall().brief(),
        c.publishCall().brief(),
        c.completeCall().brief(),
        c.writerLag().brief(),
        c.rowsPerClaim(),
        c.cpu());
  }

  private static void report(List<Cell> cells) {
    System.out.printf(
        "%n| broker | events/s | interval ms | mode | events | arrived | p50 ms | p95 ms | p99 ms |"
            + " max ms | claim wait p50/p99 | claim->published p50/p99 | publish call p50/p99 |"
            + " complete call p50/p99 | writer lag p99 |%n"
            + "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|---|---:|%n");
    for (Cell c : cells) {
      System.out.printf(
          "| %s | %,.0f | %d | %s | %,d | %,d | %.0f | %.0f | %.0f | %.0f | %.0f / %.0f | %.0f / %.0f"
              + " | %.1f / %.1f | %.1f / %.1f | %.0f |%n",
          c.broker(),
          c.rate(),
          c.intervalMs(),
          c.mode(),
          c.measured(),
          c.arrived(),
          c.latency().p50(),
          c.latency().p95(),
          c.latency().p99(),
          c.latency().max(),
          c.claimWait().p50(),
          c.claimWait().p99(),
          c.claimToAccepted().p50(),
          c.claimToAccepted().p99(),
          c.publishCall().p50(),
          c.publishCall().p99(),
          c.completeCall().p50(),
          c.completeCall().p99(),
          c.writerLag().p99());
    }
    for (Cell c : cells) {
      if (c.rate() == 1000 && c.intervalMs() == 100 && !c.broker().equals("counting")) {
        System.out.printf(
            "target (p99 <= %.0f ms at 1,000 events/s, 100 ms interval), %s: p99 %.0f ms, %s%n",
            TARGET_P99_MS,
            c.broker(),
            c.latency().p99(),
            c.latency().p99() <= TARGET_P99_MS && c.arrived() == c.measured() ? "met" : "NOT met");
      }
    }
  }

  /** {@code NAME=value;NAME=value}: poller settings beyond its defaults. */
  static Map<String, String> settings(String pairs) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String pair : pairs.split(";")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        settings.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
      }
    }
    return settings;
  }

  private static double[] doubles(String list) {
    return Arrays.stream(list.split(",")).mapToDouble(s -> Double.parseDouble(s.strip())).toArray();
  }
}
