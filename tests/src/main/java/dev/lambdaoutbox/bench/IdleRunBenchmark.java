package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxTables;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one scheduled run of the poller costs when there is nothing to publish, the run the default
 * schedule (every minute, {@code OUTBOX_POLL_INTERVAL_MS} 0) pays for all month: the real handler
 * wiring (JDBC store, SNS/SQS clients) on empty outbox tables in the test bed's PostgreSQL and
 * MariaDB, warm, as Lambda reuses an environment between runs a minute apart. Prints the median and
 * 99th percentile of the run's own duration ({@code durationMs}) and the GB-seconds a month of them
 * would bill at 1024 MB; asserts nothing. The cost section of docs/deploying.md (DocSections)
 * quotes these figures.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.IdleRunBenchmark [RUNS]
 * </pre>
 */
public final class IdleRunBenchmark {
  private static final int WARM_UP = 200;
  private static final double RUNS_PER_MONTH = 60 * 730; // every minute, AWS's 730-hour month

  private IdleRunBenchmark() {}

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
    measure(TestEndpoints.postgres(), runs);
    measure(TestEndpoints.mysql(), runs);
  }

  private static void measure(TestDatabase db, int runs) throws Exception {
    OutboxTables tables = db.createTables("idle");
    AwsEndpoint aws = TestEndpoints.aws();
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    PrintStream stdout = System.out;
    // The run's JSON logs and EMF lines would drown the figures.
    System.setOut(new PrintStream(new ByteArrayOutputStream()));
    List<Long> micros = new ArrayList<>();
    try (OutboxPoller poller = PollerWiring.create(PollerConfig.fromEnvironment(env)).poller()) {
      for (int i = 0; i < WARM_UP + runs; i++) {
        long start = System.nanoTime();
        PollSummary summary = poller.run(() -> 60_000, "idle-" + i);
        long took = (System.nanoTime() - start) / 1_000;
        if (summary.claimed() != 0) {
          throw new IllegalStateException("the outbox was not empty: " + summary);
        }
        if (i >= WARM_UP) {
          micros.add(took);
        }
      }
    } finally {
      System.setOut(stdout);
      db.dropTables(tables);
    }
    Collections.sort(micros);
    double median = micros.get(micros.size() / 2) / 1000.0;
    double p99 = micros.get((int) (micros.size() * 0.99)) / 1000.0;
    System.out.printf(
        Locale.ROOT,
        "%-10s idle run (claim on an empty outbox, backlog query, EMF line), %d runs after %d"
            + " warm-up: median %.2f ms, p99 %.2f ms; a month of runs every minute at 1 GB:"
            + " %.0f GB-s at the median (endpoint %s)%n",
        db.name(),
        runs,
        WARM_UP,
        median,
        p99,
        RUNS_PER_MONTH * median / 1000.0,
        aws.endpoint());
  }
}
