package dev.lambdaoutbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * N packaged poller processes (the shaded jar under AWS's runtime interface client) polling one
 * Runtime API emulator, as N concurrent execution environments of one function do, over one
 * outbox's tables. For benchmarks that measure the jar as Lambda runs it.
 */
final class PackagedPollers implements AutoCloseable {
  private static final String POLLER = "dev.lambdaoutbox.poller.PollerHandler::handleRequest";
  private static final ObjectMapper JSON = new ObjectMapper();

  final LambdaRuntimeEmulator emulator;
  private final TestDatabase db;
  private final OutboxTables tables;
  private final Duration drainTimeout;
  private final List<PackagedFunction> functions = new ArrayList<>();

  /**
   * Starts {@code n} pollers on {@code java} with {@code jvmOptions} and {@code environment} (the
   * database, tables and endpoints: {@link PackagedFunction#testBedEnvironment}, plus the poller's
   * own settings) and the emulator's {@code Invoke} API as their Lambda endpoint, for fan-out. An
   * invocation runs for {@code timeout} unless sent with another; {@link #drainEach} sends {@code
   * drainTimeout}.
   */
  PackagedPollers(
      TestDatabase db,
      OutboxTables tables,
      Map<String, String> environment,
      Path java,
      List<String> jvmOptions,
      int n,
      Duration timeout,
      Duration drainTimeout)
      throws Exception {
    this.db = db;
    this.tables = tables;
    this.drainTimeout = drainTimeout;
    this.emulator = new LambdaRuntimeEmulator(timeout, OutboxFunction.POLLER.asyncInvokeConfig());
    Map<String, String> env = new HashMap<>(environment);
    env.put("AWS_ENDPOINT_URL_LAMBDA", emulator.invokeEndpoint());
    try {
      for (int i = 0; i < n; i++) {
        functions.add(
            PackagedFunction.start(
                PackagedFunction.lambdaJar("poller-function"),
                "outbox-poller",
                POLLER,
                env,
                emulator,
                java,
                jvmOptions));
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** Commits {@code rows} due rows (a day old) to the outbox, in bulk. */
  void load(int rows) throws Exception {
    HistoryLoader.backlog(db, tables, rows);
  }

  /**
   * Sends {@code n} invocations marked as a fan-out's at once (each drains and stops, whatever the
   * concurrency cap); their answers.
   */
  List<JsonNode> drainEach(int n) throws Exception {
    List<CompletableFuture<LambdaRuntimeEmulator.Result>> sent = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sent.add(emulator.submit("{\"outboxFanOut\":{\"startedBy\":\"benchmark\"}}", drainTimeout));
    }
    List<JsonNode> answers = new ArrayList<>();
    for (CompletableFuture<LambdaRuntimeEmulator.Result> f : sent) {
      answers.add(answer(f));
    }
    return answers;
  }

  /** An invocation's summary; fails with every poller's output when the invocation failed. */
  JsonNode answer(CompletableFuture<LambdaRuntimeEmulator.Result> result) throws Exception {
    LambdaRuntimeEmulator.Result r =
        result.get(drainTimeout.toMillis() + 120_000, TimeUnit.MILLISECONDS);
    if (r.failed()) {
      throw new IllegalStateException(
          "an invocation failed: " + r.errorType() + " " + r.body() + "\n" + output());
    }
    return JSON.readTree(r.body());
  }

  /** Fails when a poller's JVM died: the run would measure fewer pollers than it says. */
  void requireAllRunning() throws Exception {
    if (!functions.stream().allMatch(PackagedFunction::isAlive)) {
      throw new IllegalStateException("a poller process died:\n" + output());
    }
  }

  /** CPU time the poller processes have used so far, in nanoseconds; -1 without /proc. */
  long cpuNanos() {
    long ticks = 0;
    for (PackagedFunction f : functions) {
      long t = CpuUse.processTicks(f.pid());
      if (t < 0) {
        return -1;
      }
      ticks += t;
    }
    return ticks * CpuUse.NANOS_PER_TICK;
  }

  /** What the pollers printed so far. */
  String output() throws Exception {
    StringBuilder out = new StringBuilder();
    for (PackagedFunction f : functions) {
      out.append(f.output());
    }
    return out.toString();
  }

  /** Ends the pollers and the emulator; the tables are the caller's. */
  @Override
  public void close() {
    for (PackagedFunction f : functions) {
      f.close();
    }
    emulator.close();
  }
}
