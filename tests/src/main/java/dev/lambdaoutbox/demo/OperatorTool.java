package dev.lambdaoutbox.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code scripts/outbox-ops}, run as an operator runs it against a local database: {@code --local
 * --env-file FILE}, so the packaged reprocessor jar answers in a local Lambda runtime, configured
 * by the env file as a deployed function is by its environment.
 */
final class OperatorTool {
  static final String OPERATOR = "night-operator@example.com";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path envFile;
  private final Path workDir;

  OperatorTool(Path envFile, Path workDir) {
    this.envFile = envFile;
    this.workDir = workDir;
  }

  /** The command line an operator types for {@code args} (without the env file). */
  static String typed(String... args) {
    return "scripts/outbox-ops --local " + String.join(" ", quoted(args));
  }

  /** Runs the tool with {@code args}; its JSON report, or an exception with what it printed. */
  JsonNode run(String... args) throws IOException, InterruptedException {
    Path root = PackagedFunction.projectRoot();
    List<String> command = new ArrayList<>();
    command.add(root.resolve("scripts/outbox-ops").toString());
    command.add("--local");
    command.add("--env-file");
    command.add(envFile.toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
    // This run's build made the jars; the env file, not the test bed's defaults, names the tables.
    builder.environment().put("RUN_MAIN_BUILD", "off");
    builder.environment().put("OUTBOX_TESTBED", "off");
    builder.environment().put("OUTBOX_OPS_REQUESTED_BY", OPERATOR);
    Path out = Files.createTempFile(workDir, "ops-", ".out");
    Path err = Files.createTempFile(workDir, "ops-", ".err");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("outbox-ops did not finish: " + Files.readString(err));
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          "outbox-ops "
              + String.join(" ", args)
              + " exited "
              + process.exitValue()
              + ":\n"
              + Files.readString(err));
    }
    return JSON.readTree(out.toFile());
  }

  private static List<String> quoted(String... args) {
    List<String> quoted = new ArrayList<>();
    for (String arg : args) {
      quoted.add(
          arg.matches("[A-Za-z0-9_./:=@,+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'");
    }
    return quoted;
  }
}
