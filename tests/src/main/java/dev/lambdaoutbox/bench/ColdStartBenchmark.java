package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Cold starts of the packaged functions, the way Lambda starts them: a fresh JVM running AWS's
 * runtime interface client on the function's shaded jar, fed by the {@link LambdaRuntimeEmulator},
 * measured from process start to (a) the end of init (the runtime client has constructed the
 * handler and asks for the first event) and (b) the first response. Each round starts every case
 * once, in turn, so that load changes on the machine fall on all of them alike:
 *
 * <ul>
 *   <li><b>floor</b>: a do-nothing handler, packaged alone ({@code DoNothingHandler});
 *   <li><b>poller, empty outbox</b>: a claim that finds nothing;
 *   <li><b>poller, one row</b>: one row claimed, published to SQS and recorded;
 *   <li><b>reprocessor, list</b>: an operator's {@code list} of an empty dead-letter table.
 * </ul>
 *
 * <p>Every response is checked (the poller must report the row published), so a broken start is
 * never counted as a fast one. Prints median and p90 per case and the ratio to the floor; asserts
 * nothing.
 *
 * <pre>
 * JAVA_OPTS="-Dbench.java=$(scripts/lambda-java21)" \
 *     scripts/run-main dev.lambdaoutbox.bench.ColdStartBenchmark [STARTS]
 * </pre>
 *
 * <p>Properties: {@code bench.java} the JVM to start the functions on (default: this one; Lambda's
 * runtime is Java 21); {@code bench.jvmOptions} replaces {@link #LAMBDA_JVM_OPTIONS}; {@code
 * bench.functionEnv} adds {@code NAME=value;NAME=value} to the functions' environment (e.g. {@code
 * JAVA_TOOL_OPTIONS=...}); {@code bench.baselineJars} a folder of earlier function jars to run
 * beside this build's.
 */
public final class ColdStartBenchmark {
  /**
   * The JVM options that matter for start-up which Lambda's java21 runtime sets: the serial
   * collector, and tiered compilation stopped at C1 ("for Java 17 and Java 21, Lambda configures
   * the JVM by default to stop tiered compilation at level 1", Lambda developer guide, "Customize
   * Java runtime startup behavior"), with the JDK's class-data-sharing archive.
   */
  static final List<String> LAMBDA_JVM_OPTIONS =
      List.of(
          "-XX:+UseSerialGC", "-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

  private static final String POLLER = "dev.lambdaoutbox.poller.PollerHandler::handleRequest";

  /** The JVM to start packaged functions on: {@code bench.java}, by default this one. */
  static Path functionJava() {
    return Path.of(
        System.getProperty("bench.java", ProcessHandle.current().info().command().orElse("java")));
  }

  /** The packaged functions' JVM options: {@code bench.jvmOptions}, by default Lambda's. */
  static List<String> functionJvmOptions() {
    String options = System.getProperty("bench.jvmOptions");
    return options == null
        ? LAMBDA_JVM_OPTIONS
        : Arrays.stream(options.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
  }

  private static final String REPROCESSOR =
      "dev.lambdaoutbox.reprocessor.DeadLetterReprocessorHandler::handleRequest";
  private static final String FLOOR = "dev.lambdaoutbox.bench.floor.DoNothingHandler";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** One kind of cold start: which jar and handler, and what the first invocation does. */
  private record Case(
      String name,
      Path jar,
      String handler,
      Map<String, String> environment,
      String event,
      Runnable before,
      String mustContain) {}

  /** Milliseconds from process start to the end of init and to the first response. */
  private record Start(double initMs, double firstResponseMs) {}

  private ColdStartBenchmark() {}

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    int starts = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    Path java = functionJava();
    List<String> jvmOptions = functionJvmOptions();

    TestDatabase db = TestEndpoints.postgres();
    AwsEndpoint aws = TestEndpoints.aws();
    OutboxTables tables = db.createTables("cold");
    try (SqsClient sqs = aws.sqs()) {
      String queue =
          sqs.createQueue(r -> r.queueName("cold-start-" + UUID.randomUUID().toString()))
              .queueUrl();
      Map<String, String> env = functionEnvironment(db, aws, tables);
      Map<String, String> pollerEnv = new HashMap<>(env);
      pollerEnv.put("OUTBOX_DEFAULT_DESTINATION", queue);
      pollerEnv.put("OUTBOX_ROUTES", "{}"); // the template's default: routes are always parsed
      OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
      String scheduled =
          Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
      Runnable nothing = () -> {};
      Runnable oneRow =
          () ->
              db.jdbi()
                  .useTransaction(
                      h ->
                          writer.append(
                              h,
                              OutboxEvent.builder()
                                  .aggregateType("reservation")
                                  .aggregateId("r-1")
                                  .eventType("reservation.created")
                                  .payload("{\"reservationId\":\"r-1\",\"shopId\":7}")
                                  .build()));
      List<Case> cases = new ArrayList<>();
      cases.add(new Case("floor (do-nothing)", floorJar(), FLOOR, env, "{}", nothing, "{}"));
      // With bench.baselineJars=DIR, the same cases also run the jars in DIR (e.g. copies of an
      // earlier build), so a change is measured against what it replaces in the same run.
      String baseline = System.getProperty("bench.baselineJars");
      for (String variant : baseline == null ? List.of("") : List.of("", baseline)) {
        String label = variant.isEmpty() ? "" : " (baseline)";
        Path poller = jar(variant, "poller-function");
        Path reprocessor = jar(variant, "dlq-reprocessor-function");
        String list = "{\"action\":\"list\",\"requestedBy\":\"bench\"}";
        cases.add(
            new Case(
                "poller, empty" + label,
                poller,
                POLLER,
                pollerEnv,
                scheduled,
                nothing,
                "\"claimed\":0"));
        cases.add(
            new Case(
                "poller, one row" + label,
                poller,
                POLLER,
                pollerEnv,
                scheduled,
                oneRow,
                "\"published\":1"));
        cases.add(
            new Case(
                "reprocessor, list" + label,
                reprocessor,
                REPROCESSOR,
                env,
                list,
                nothing,
                "\"count\":0"));
      }

      System.out.printf(
          "functions on %s (%s), options %s; %d starts per case after one warm-up round%n",
          java, javaVersion(java), jvmOptions, starts);
      for (Case c : cases) {
        System.out.printf(
            "  %-30s %s (%,d KB)%n", c.name(), c.jar().getFileName(), Files.size(c.jar()) / 1024);
      }
      Map<Case, List<Start>> results = new LinkedHashMap<>();
      for (int round = 0; round <= starts; round++) {
        for (Case c : cases) {
          Start start = coldStart(c, java, jvmOptions);
          if (round > 0) { // round 0 warms the file cache, the database and the endpoint
            results.computeIfAbsent(c, k -> new ArrayList<>()).add(start);
          }
        }
      }
      print(results);
      sqs.deleteQueue(r -> r.queueUrl(queue));
    } finally {
      db.dropTables(tables);
    }
  }

  private static Start coldStart(Case c, Path java, List<String> jvmOptions) throws Exception {
    c.before().run();
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator()) {
      long begin = System.nanoTime();
      try (PackagedFunction function =
          PackagedFunction.start(
              c.jar(), "cold-start", c.handler(), c.environment(), runtime, java, jvmOptions)) {
        LambdaRuntimeEmulator.Result result = runtime.invoke(c.event(), TIMEOUT);
        long end = System.nanoTime();
        if (result.failed() || !result.body().replace(" ", "").contains(c.mustContain())) {
          throw new IllegalStateException(
              c.name() + ": unexpected response " + result.body() + "\n" + function.output());
        }
        long initEnd = runtime.awaitFirstPoll(TIMEOUT);
        return new Start((initEnd - begin) / 1e6, (end - begin) / 1e6);
      }
    }
  }

  private static void print(Map<Case, List<Start>> results) {
    double floorInit = 0;
    double floorFirst = 0;
    System.out.printf(
        "%n%-30s %12s %12s %14s %14s %9s %9s%n",
        "case",
        "init p50 ms",
        "init p90 ms",
        "first p50 ms",
        "first p90 ms",
        "init/flr",
        "first/flr");
    for (Map.Entry<Case, List<Start>> e : results.entrySet()) {
      double[] init = e.getValue().stream().mapToDouble(Start::initMs).sorted().toArray();
      double[] first = e.getValue().stream().mapToDouble(Start::firstResponseMs).sorted().toArray();
      if (floorInit == 0) {
        floorInit = percentile(init, 50);
        floorFirst = percentile(first, 50);
      }
      System.out.printf(
          "%-30s %12.0f %12.0f %14.0f %14.0f %8.2fx %8.2fx%n",
          e.getKey().name(),
          percentile(init, 50),
          percentile(init, 90),
          percentile(first, 50),
          percentile(first, 90),
          percentile(init, 50) / floorInit,
          percentile(first, 50) / floorFirst);
    }
  }

  /** Nearest-rank percentile of sorted values. */
  private static double percentile(double[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  private static Map<String, String> functionEnvironment(
      TestDatabase db, AwsEndpoint aws, OutboxTables tables) {
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, aws);
    String extra = System.getProperty("bench.functionEnv", "");
    for (String pair : extra.split(";")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        env.put(pair.substring(0, eq).trim(), pair.substring(eq + 1));
      }
    }
    return env;
  }

  /** The module's shaded jar: this build's, or the one of that name in {@code dir}. */
  private static Path jar(String dir, String module) throws IOException {
    Path built = PackagedFunction.lambdaJar(module);
    return dir.isEmpty() ? built : Path.of(dir).resolve(built.getFileName());
  }

  /** {@code tests/target/tests-*-do-nothing-lambda.jar}, which {@code mvn package} builds. */
  private static Path floorJar() throws IOException {
    Path target = PackagedFunction.projectRoot().resolve("tests/target");
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith("-do-nothing-lambda.jar"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no *-do-nothing-lambda.jar in " + target));
    }
  }

  private static String javaVersion(Path java) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(java.toString(), "-version").redirectErrorStream(true).start();
    String first = new String(p.getInputStream().readAllBytes()).lines().findFirst().orElse("?");
    p.waitFor();
    return first;
  }
}
