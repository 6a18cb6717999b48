package dev.lambdaoutbox.local;

import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sns.SnsClient;

/**
 * Runs one invocation of a packaged function on this machine, without Docker, the way Lambda runs
 * it: the function's {@code -lambda.jar} in its own JVM under AWS's runtime interface client, fed
 * by the project's Runtime API emulator, configured by environment variables alone.
 *
 * <pre>
 * scripts/run-main dev.lambdaoutbox.local.InvokeFunction poller|reprocessor
 *     [--env-file FILE] [--event FILE|-] [--timeout SECONDS]
 * </pre>
 *
 * <ul>
 *   <li>{@code --env-file FILE}: the function's configuration, {@code NAME=value} lines (the
 *       variables of docs/configuration.md). The function sees these, plus the {@code AWS_*}
 *       variables of this process the file does not set (region, credentials, profile, endpoint),
 *       as Lambda gives a function its own. With {@code OUTBOX_TESTBED=off}, scripts/run-main
 *       leaves the test bed alone, for a run against your own database and AWS.
 *   <li>Without {@code --env-file}: the local test bed, on the tables {@code make run-poller} uses
 *       ({@code demo_} prefix in its PostgreSQL, created if missing) with the SNS topic {@code
 *       outbox-demo-reservations} as the default destination; the reprocessor may send events to
 *       any of the test bed's topics and queues.
 *   <li>{@code --event}: the invocation's JSON; default {@code events/scheduled-event.json} for the
 *       poller; {@code -} reads standard input.
 *   <li>{@code --timeout}: the function's remaining time at the start, in seconds; default the
 *       template's (60 for the poller, 300 for the reprocessor).
 * </ul>
 *
 * <p>Relative paths are taken from the directory scripts/run-main was started in. The function's
 * answer goes to standard output, its own output (JSON logs, EMF lines) to standard error. Exit
 * status: 0 when it answered, 1 when it failed (the output is then Lambda's error JSON, {@code
 * errorMessage} and {@code errorType}), 2 for a bad command line.
 */
public final class InvokeFunction {
  private static final String USAGE =
      "usage: scripts/run-main dev.lambdaoutbox.local.InvokeFunction poller|reprocessor"
          + " [--env-file FILE] [--event FILE|-] [--timeout SECONDS]";

  private InvokeFunction() {}

  public static void main(String[] args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("InvokeFunction: " + e.getMessage() + "\n" + USAGE);
      System.exit(2);
      return;
    }
    Map<String, String> env =
        options.envFile() == null
            ? testBedEnvironment(options.function())
            : fileEnvironment(options.envFile());
    LambdaRuntimeEmulator.Result result;
    String output;
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction function =
            PackagedFunction.start(
                options.function().module(), options.function().handler(), env, runtime)) {
      result = runtime.invoke(options.event(), options.timeout());
      output = function.output();
    }
    PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
    err.print(output);
    System.out.println(result.body());
    System.exit(result.failed() ? 1 : 0);
  }

  /** The file's variables, and this process's AWS_* variables the file does not set. */
  private static Map<String, String> fileEnvironment(Path file) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    System.getenv()
        .forEach(
            (name, value) -> {
              if (name.startsWith("AWS_")) {
                env.put(name, value);
              }
            });
    env.putAll(EnvFile.read(file));
    return env;
  }

  /** The test bed's database, endpoint and demo tables (and topic, for the poller). */
  private static Map<String, String> testBedEnvironment(OutboxFunction function) {
    TestDatabase db = TestEndpoints.postgres();
    AwsEndpoint aws = TestEndpoints.aws();
    Map<String, String> env = new LinkedHashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", LocalDemo.tables(db).prefix());
    env.putAll(aws.environment());
    if (function == OutboxFunction.POLLER) {
      try (SnsClient sns = aws.sns()) {
        env.put("OUTBOX_DEFAULT_DESTINATION", LocalDemo.topic(sns));
      }
    } else {
      // Events may be sent by hand to any of the test bed's own topics and queues.
      env.put(
          "OUTBOX_REPLAY_DESTINATIONS",
          "arn:aws:sns:"
              + aws.region()
              + ":000000000000:*,arn:aws:sqs:"
              + aws.region()
              + ":000000000000:*");
    }
    return env;
  }

  /** The command line, checked. */
  private record Options(OutboxFunction function, Path envFile, String event, Duration timeout) {
    static Options parse(String[] args) throws IOException {
      Deque<String> rest = new ArrayDeque<>(List.of(args));
      if (rest.isEmpty() || rest.peek().startsWith("-")) {
        throw new IllegalArgumentException("name the function: poller or reprocessor");
      }
      String name = rest.pop();
      OutboxFunction function =
          OutboxFunction.named(name)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "'" + name + "' is not a function; use poller or reprocessor"));
      Path envFile = null;
      String eventArgument = null;
      Duration timeout = function.timeout();
      while (!rest.isEmpty()) {
        String option = rest.pop();
        if (rest.isEmpty()) {
          throw new IllegalArgumentException(option + " needs a value");
        }
        String value = rest.pop();
        switch (option) {
          case "--env-file" -> {
            envFile = callerPath(value);
            if (!Files.isReadable(envFile)) {
              throw new IllegalArgumentException("--env-file: cannot read " + value);
            }
          }
          case "--event" -> eventArgument = value;
          case "--timeout" -> {
            try {
              timeout = Duration.ofSeconds(Integer.parseInt(value));
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("--timeout: '" + value + "' is not seconds");
            }
            if (timeout.isNegative() || timeout.isZero() || timeout.toSeconds() > 900) {
              throw new IllegalArgumentException("--timeout: use 1 to 900 seconds");
            }
          }
          default -> throw new IllegalArgumentException("unknown option " + option);
        }
      }
      return new Options(function, envFile, event(function, eventArgument), timeout);
    }

    /**
     * A path as the caller meant it: scripts/run-main runs this from the repository root, and
     * passes the directory it was started from in {@code RUN_MAIN_CALLER_DIR}.
     */
    private static Path callerPath(String path) {
      String caller = System.getenv("RUN_MAIN_CALLER_DIR");
      return caller == null ? Path.of(path) : Path.of(caller).resolve(path);
    }

    private static String event(OutboxFunction function, String argument) throws IOException {
      if (argument == null) {
        if (function != OutboxFunction.POLLER) {
          throw new IllegalArgumentException(
              "--event is required for the reprocessor, e.g. --event events/list.json");
        }
        return Files.readString(
            PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
      }
      if (argument.equals("-")) {
        return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
      }
      Path file = callerPath(argument);
      if (!Files.isReadable(file)) {
        throw new IllegalArgumentException("--event: cannot read " + argument);
      }
      return Files.readString(file);
    }
  }
}
