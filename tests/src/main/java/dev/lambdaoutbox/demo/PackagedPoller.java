package dev.lambdaoutbox.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The poller as Lambda runs it: its packaged {@code -lambda.jar} in a JVM of its own under AWS's
 * runtime interface client, fed by the Runtime API emulator, configured by environment variables
 * alone. One instance is one execution environment: warm invocations reuse its JVM; {@link #kill}
 * ends it as Lambda ends one that overran or lost its host (SIGKILL), and a new instance is a cold
 * start.
 */
final class PackagedPoller implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final LambdaRuntimeEmulator runtime;
  private final PackagedFunction function;
  private final String scheduledEvent;
  private int outputRead;

  /** What one invocation answered, and the EMF metrics it emitted. */
  record Run(JsonNode summary, String errorType, JsonNode metrics, String output) {
    boolean failed() {
      return errorType != null;
    }

    /** A metric of the run's EMF line; 0 when it emitted none of that name. */
    long metric(String name) {
      return metrics == null ? 0 : metrics.path(name).asLong(0);
    }

    /** The run's JSON log lines at {@code level} (e.g. ERROR). */
    List<JsonNode> logs(String level) throws IOException {
      return logLines(output, level);
    }

    /**
     * The run's WARN and ERROR log lines, told apart by message and error code: each once, with how
     * often it came (e.g. {@code ERROR event dead-lettered [NO_DESTINATION] x50}).
     */
    List<String> problems() throws IOException {
      Map<String, Integer> seen = new LinkedHashMap<>();
      for (String level : List.of("ERROR", "WARN")) {
        for (JsonNode line : logs(level)) {
          String code = line.path("errorCode").asText("");
          seen.merge(
              level
                  + " "
                  + line.path("message").asText()
                  + (code.isEmpty() ? "" : " [" + code + "]"),
              1,
              Integer::sum);
        }
      }
      List<String> problems = new ArrayList<>();
      seen.forEach((text, n) -> problems.add(n == 1 ? text : text + " x" + n));
      return problems;
    }

    /** A count of the answer; 0 when absent. */
    long count(String name) {
      return summary == null ? 0 : summary.path(name).asLong(0);
    }
  }

  PackagedPoller(Map<String, String> environment) throws IOException {
    this.scheduledEvent =
        Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
    this.runtime = new LambdaRuntimeEmulator();
    this.function =
        PackagedFunction.start(
            OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), environment, runtime);
  }

  /** One scheduled invocation, waited for. */
  Run invoke() throws Exception {
    return finished(runtime.invoke(scheduledEvent, TIMEOUT));
  }

  /** One scheduled invocation, not waited for (see {@link #kill}). */
  CompletableFuture<LambdaRuntimeEmulator.Result> submit() {
    return runtime.submit(scheduledEvent, TIMEOUT);
  }

  /** Kills the JVM with SIGKILL; returns its exit status (137). */
  int kill() throws InterruptedException {
    return function.kill();
  }

  /** What the invocation that gave {@code result} answered and emitted. */
  Run finished(LambdaRuntimeEmulator.Result result) throws IOException {
    JsonNode summary = result.failed() ? null : JSON.readTree(result.body());
    String output = newOutput();
    return new Run(summary, result.errorType(), lastMetrics(output), output);
  }

  /** The function's output since the last call. */
  String newOutput() throws IOException {
    String output = function.output();
    String fresh = output.substring(Math.min(outputRead, output.length()));
    outputRead = output.length();
    return fresh;
  }

  /**
   * The values of the last invocation's EMF line in {@code output}, by metric name; null when there
   * is none. That is the last line with the invocation's counts: the lines that carry the rest of
   * the latencies of a run that published more than 100 rows carry nothing else.
   */
  private static JsonNode lastMetrics(String output) throws IOException {
    JsonNode last = null;
    for (String line : output.lines().toList()) {
      if (line.startsWith("{") && line.contains("\"_aws\"")) {
        JsonNode metrics = JSON.readTree(line);
        if (metrics.has("Claimed")) {
          last = metrics;
        }
      }
    }
    return last;
  }

  private static List<JsonNode> logLines(String output, String level) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : output.lines().toList()) {
      if (line.startsWith("{") && !line.contains("\"_aws\"")) {
        JsonNode node = JSON.readTree(line);
        if (level.equals(node.path("level").asText())) {
          lines.add(node);
        }
      }
    }
    return lines;
  }

  @Override
  public void close() {
    function.close();
    runtime.close();
  }
}
