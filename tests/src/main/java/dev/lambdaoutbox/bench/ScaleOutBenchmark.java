package dev.lambdaoutbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Scale-out on Lambda, with the packaged poller: the shaded jar under AWS's runtime interface
 * client, N processes polling one Runtime API emulator as N concurrent execution environments of
 * one function, publishing to SQS on ElasticMQ (a private child JVM: the shared test bed's
 * LocalStack manages a few hundred messages a second and would be all this measures).
 *
 * <ol>
 *   <li><b>Side by side</b>: for N = 1, 2, 4, N fresh processes drain the same backlog, each sent
 *       one invocation marked as a fan-out's at the same moment (after a warm-up drain of their
 *       own): events/s from the sending to the last answer.
 *   <li><b>The real fan-out</b>: 4 warm processes, {@code OUTBOX_MAX_CONCURRENT_POLLERS=4}, one
 *       scheduled invocation. The poller counts the due rows, decides, and invokes itself through
 *       the SDK's Lambda client, which the emulator answers as Lambda's {@code Invoke} API ({@code
 *       AWS_ENDPOINT_URL_LAMBDA}): how many it started, and events/s.
 * </ol>
 *
 * Each run checks that the outbox is empty afterwards and that the invocations' summaries add up to
 * the rows. Prints; asserts nothing.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.bench.ScaleOutBenchmark [ROWS]      default 30000
 * JAVA_OPTS="-Dbench.java=$(scripts/lambda-java21) -Dbench.pollers=1,2,4"
 * </pre>
 */
public final class ScaleOutBenchmark {
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

  /** The fan-out part's invocations: short, so that the backlog is beyond one of them. */
  private static final Duration SCHEDULED_TIMEOUT = Duration.ofSeconds(30);

  private ScaleOutBenchmark() {}

  private record Run(
      String name, int pollers, long rows, long published, double seconds, String note) {
    double perSecond() {
      return published / seconds;
    }
  }

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 30_000;
    List<Integer> counts =
        List.of(System.getProperty("bench.pollers", "1,2,4").split(",")).stream()
            .map(s -> Integer.parseInt(s.strip()))
            .toList();
    Path java =
        Path.of(
            System.getProperty(
                "bench.java", ProcessHandle.current().info().command().orElse("java")));
    TestDatabase db = TestEndpoints.postgres();
    List<Run> runs = new ArrayList<>();
    try (ElasticMq broker = ElasticMq.start().warmUp(40_000);
        SqsClient sqs = broker.endpoint().sqs()) {
      System.out.printf(
          "PostgreSQL at %s, SQS on ElasticMQ at %s, %d CPUs, %,d rows, functions on %s%n",
          db.jdbcUrl(),
          broker.endpoint().endpoint(),
          Runtime.getRuntime().availableProcessors(),
          rows,
          java);
      CpuUse cpu = CpuUse.withServerOn(broker.endpoint().endpoint().getPort());
      for (int n : counts) {
        runs.add(print(sideBySide(db, sqs, broker, java, n, rows, cpu)));
      }
      runs.add(print(fanOut(db, sqs, broker, java, 4, rows, cpu)));
    }
    Run one = runs.get(0);
    System.out.printf(
        "%n| run | pollers | rows | published | seconds | events/s | x one poller | note |%n"
            + "|---|---:|---:|---:|---:|---:|---:|---|%n");
    for (Run r : runs) {
      System.out.printf(
          "| %s | %d | %,d | %,d | %.2f | %,.0f | %.2fx | %s |%n",
          r.name(),
          r.pollers(),
          r.rows(),
          r.published(),
          r.seconds(),
          r.perSecond(),
          r.perSecond() / one.perSecond(),
          r.note());
    }
  }

  private static Run sideBySide(
      TestDatabase db, SqsClient sqs, ElasticMq broker, Path java, int n, int rows, CpuUse cpu)
      throws Exception {
    try (Fleet fleet = new Fleet(db, sqs, broker, java, n, n)) {
      fleet.load(rows);
      CpuUse.Sample from = cpu.sample();
      long start = System.nanoTime();
      List<JsonNode> answers = fleet.drainEach(n);
      double seconds = (System.nanoTime() - start) / 1e9;
      String use = cpu.describe(from, cpu.sample());
      return fleet.checked(
          "side by side", n, rows, answers, seconds, "each sent one invocation; CPU " + use);
    }
  }

  private static Run fanOut(
      TestDatabase db, SqsClient sqs, ElasticMq broker, Path java, int n, int rows, CpuUse cpu)
      throws Exception {
    try (Fleet fleet = new Fleet(db, sqs, broker, java, n, n)) {
      fleet.load(rows);
      CpuUse.Sample from = cpu.sample();
      long start = System.nanoTime();
      JsonNode scheduled =
          fleet.answer(
              fleet.emulator.submit(
                  "{\"detail-type\":\"Scheduled Event\",\"source\":\"aws.events\",\"detail\":{}}",
                  SCHEDULED_TIMEOUT));
      List<JsonNode> answers = new ArrayList<>(List.of(scheduled));
      for (CompletableFuture<LambdaRuntimeEmulator.Result> f :
          fleet.emulator.invokedByFunctions()) {
        answers.add(fleet.answer(f));
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      String use = cpu.describe(from, cpu.sample());
      return fleet.checked(
          "fan-out from one scheduled invocation",
          n,
          rows,
          answers,
          seconds,
          String.format(
              "OUTBOX_MAX_CONCURRENT_POLLERS=%d, %d s timeout: it started %d; CPU %s",
              n, SCHEDULED_TIMEOUT.toSeconds(), scheduled.path("startedPollers").asInt(), use));
    }
  }

  private static Run print(Run r) {
    System.out.printf(
        "  %-40s %d pollers: %,d of %,d rows in %.2f s, %,.0f events/s; %s%n",
        r.name(), r.pollers(), r.published(), r.rows(), r.seconds(), r.perSecond(), r.note());
    return r;
  }

  /**
   * N packaged poller processes on one emulator, their tables and queue, warmed up: each has
   * published once (SDK clients built, the publish and claim paths run).
   */
  private static final class Fleet implements AutoCloseable {
    final LambdaRuntimeEmulator emulator;
    private final TestDatabase db;
    private final OutboxTables tables;
    private final SqsClient sqs;
    private final String queue;
    private final PackagedPollers pollers;

    Fleet(TestDatabase db, SqsClient sqs, ElasticMq broker, Path java, int n, int maxPollers)
        throws Exception {
      this.db = db;
      this.sqs = sqs;
      this.tables = db.createTables("scale");
      this.queue = sqs.createQueue(r -> r.queueName(tables.prefix() + "q")).queueUrl();
      Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, broker.endpoint());
      env.put("OUTBOX_DEFAULT_DESTINATION", queue);
      env.put("OUTBOX_BATCH_SIZE", "1000");
      env.put("OUTBOX_LOG_LEVEL", "WARN");
      env.put("OUTBOX_MAX_CONCURRENT_POLLERS", Integer.toString(maxPollers));
      this.pollers =
          new PackagedPollers(
              db,
              tables,
              env,
              java,
              ColdStartBenchmark.LAMBDA_JVM_OPTIONS,
              n,
              SCHEDULED_TIMEOUT,
              DRAIN_TIMEOUT);
      this.emulator = pollers.emulator;
      load(2_000 * n);
      List<JsonNode> warm = drainEach(n);
      long published = warm.stream().mapToLong(j -> j.path("published").asLong()).sum();
      if (published != 2_000L * n) {
        throw new IllegalStateException("warm-up published " + published + ": " + warm);
      }
      pollers.requireAllRunning();
    }

    void load(int rows) throws Exception {
      pollers.load(rows);
    }

    List<JsonNode> drainEach(int n) throws Exception {
      return pollers.drainEach(n);
    }

    JsonNode answer(CompletableFuture<LambdaRuntimeEmulator.Result> result) throws Exception {
      return pollers.answer(result);
    }

    /** The run, after checking that the outbox is empty and the answers add up to the rows. */
    Run checked(String name, int n, int rows, List<JsonNode> answers, double seconds, String note)
        throws Exception {
      pollers.requireAllRunning();
      long published = answers.stream().mapToLong(j -> j.path("published").asLong()).sum();
      long left;
      try (Connection c = db.open();
          var st = c.createStatement();
          var rs = st.executeQuery("SELECT COUNT(*) FROM " + tables.messages())) {
        rs.next();
        left = rs.getLong(1);
      }
      String check =
          published + left != rows
              ? "CHECK FAILED: " + published + " published + " + left + " left != " + rows
              : left == 0
                  ? "all published, outbox empty"
                  : left + " rows left for the next run (timeout)";
      return new Run(name, n, rows, published, seconds, check + "; " + note);
    }

    @Override
    public void close() throws Exception {
      pollers.close();
      sqs.deleteQueue(r -> r.queueUrl(queue));
      db.dropTables(tables);
    }
  }
}
