package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.OutboxTables;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A function's packaged Lambda jar (the {@code -lambda.jar} the build shades for deployment)
 * running in its own JVM under AWS's runtime interface client, fed by a {@link
 * LambdaRuntimeEmulator}. Only the jar and the runtime client are on that JVM's class path, as in
 * the managed runtime.
 */
public final class PackagedFunction implements AutoCloseable {
  private static final String RUNTIME_CLIENT_MAIN =
      "com.amazonaws.services.lambda.runtime.api.client.AWSLambda";

  /**
   * The runtime client's JNI library, if set: loaded from there instead of unpacked to its one
   * fixed path, {@code /tmp/.libaws-lambda-jni.so}.
   */
  private static final String RUNTIME_CLIENT_JNI =
      "com.amazonaws.services.lambda.runtime.api.client.runtimeapi.NativeClient.JNI";

  private static Path runtimeClientJni;
  private static Path recorderClassPath;

  private final Process process;
  private final Path log;

  private PackagedFunction(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code handler} from the module's shaded jar with {@code environment} (plus the
   * runtime's own variables), polling {@code runtime} for invocations.
   */
  public static PackagedFunction start(
      String module, String handler, Map<String, String> environment, LambdaRuntimeEmulator runtime)
      throws IOException {
    return start(
        lambdaJar(module),
        module,
        handler,
        environment,
        runtime,
        Path.of(ProcessHandle.current().info().command().orElse("java")),
        List.of());
  }

  /**
   * Starts {@code handler} from {@code jar} on the JVM {@code java} with {@code jvmOptions} (such
   * as the ones Lambda's runtime starts its JVM with), as function {@code name}.
   */
  public static PackagedFunction start(
      Path jar,
      String name,
      String handler,
      Map<String, String> environment,
      LambdaRuntimeEmulator runtime,
      Path java,
      List<String> jvmOptions)
      throws IOException {
    return start(
        jar.toString(), name, handler, environment, runtime.newEnvironment(), java, jvmOptions);
  }

  /**
   * Starts {@code handler} from {@code jar} as function {@code name} in the execution environment
   * {@code env}, e.g. one a {@link LambdaRuntimeEmulator} scaling on demand asks for.
   */
  public static PackagedFunction start(
      String module,
      String handler,
      Map<String, String> environment,
      LambdaRuntimeEmulator.Environment env)
      throws IOException {
    return start(
        lambdaJar(module).toString(),
        module,
        handler,
        environment,
        env,
        Path.of(ProcessHandle.current().info().command().orElse("java")),
        List.of());
  }

  /**
   * A handler of the test fixtures ({@code dev.lambdaoutbox.testing}), run from this JVM's class
   * path as a Lambda function of its own, in {@code env}: e.g. an application's function that
   * writes to the outbox. {@code jvmOptions} as a function's {@code JAVA_TOOL_OPTIONS} would give.
   */
  public static PackagedFunction startFixture(
      String name,
      Class<?> handler,
      Map<String, String> environment,
      LambdaRuntimeEmulator.Environment env,
      List<String> jvmOptions)
      throws IOException {
    return start(
        System.getProperty("java.class.path"),
        name,
        handler.getName() + "::handleRequest",
        environment,
        env,
        Path.of(ProcessHandle.current().info().command().orElse("java")),
        jvmOptions);
  }

  private static PackagedFunction start(
      String classPath,
      String name,
      String handler,
      Map<String, String> environment,
      LambdaRuntimeEmulator.Environment runtime,
      Path java,
      List<String> jvmOptions)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("--enable-native-access=ALL-UNNAMED"); // the runtime client loads its JNI library
    command.add("-D" + RUNTIME_CLIENT_JNI + "=" + runtimeClientJni());
    command.addAll(jvmOptions);
    String fullClassPath = classPath + File.pathSeparator + runtimeClientClassPath();
    String records = System.getProperty(AwsCallRecorder.DIRECTORY_PROPERTY);
    if (records != null) {
      // The tests' IAM check records this function's AWS calls as it does the tests' own.
      command.add("-D" + AwsCallRecorder.DIRECTORY_PROPERTY + "=" + records);
      fullClassPath += File.pathSeparator + recorderClassPath();
    }
    command.add("-cp");
    command.add(fullClassPath);
    command.add(RUNTIME_CLIENT_MAIN);
    command.add(handler);
    Path log = Files.createTempFile(name + "-", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.clear(); // like Lambda: the function sees its configuration and the runtime's variables,
    // nothing else
    env.putAll(environment);
    env.put("AWS_LAMBDA_RUNTIME_API", runtime.runtimeApi());
    env.put("AWS_LAMBDA_FUNCTION_NAME", name);
    env.put("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST");
    env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024");
    env.put("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/" + name);
    env.put("AWS_LAMBDA_LOG_STREAM_NAME", "local");
    env.put("_HANDLER", handler);
    Process process = builder.start();
    runtime.attach(process);
    return new PackagedFunction(process, log);
  }

  /**
   * The environment a packaged function needs to reach the test bed: the database and its tables
   * ({@code OUTBOX_JDBC_URL}, user, password, {@code OUTBOX_TABLE_PREFIX}), and the SNS/SQS
   * endpoint with its region and credentials. A mutable copy, for adding the function's own
   * variables.
   */
  public static Map<String, String> testBedEnvironment(
      TestDatabase db, OutboxTables tables, AwsEndpoint aws) {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.putAll(aws.environment());
    return env;
  }

  /** What the function printed so far (its JSON logs and EMF lines). */
  public String output() throws IOException {
    return Files.readString(log);
  }

  /** {@code <module>/target/<module>-<version>-lambda.jar}, which {@code mvn package} builds. */
  public static Path lambdaJar(String module) throws IOException {
    Path target = projectRoot().resolve(module).resolve("target");
    try (Stream<Path> files = Files.exists(target) ? Files.list(target) : Stream.empty()) {
      return files
          .filter(p -> p.getFileName().toString().endsWith("-lambda.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no *-lambda.jar in "
                          + target
                          + "; build it first with ./mvnw package (make test does)"));
    }
  }

  /**
   * The repository root (the folder holding template.yaml), found from the working directory
   * upwards.
   */
  public static Path projectRoot() {
    for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("template.yaml")) && Files.exists(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "run this from inside the repository: no template.yaml above "
            + Paths.get("").toAbsolutePath());
  }

  /**
   * The runtime client's JNI library, unpacked once for this JVM's functions. Left to itself, every
   * function JVM copies it over the same {@code /tmp} file and then maps it: in Lambda each
   * environment has a {@code /tmp} of its own, but here JVMs starting side by side (two functions
   * of one test, or other builds on the machine) overwrite the file another is loading, which kills
   * that JVM with SIGBUS.
   */
  private static synchronized Path runtimeClientJni() throws IOException {
    if (runtimeClientJni == null) {
      String arch = System.getProperty("os.arch").matches("aarch64|arm64") ? "aarch_64" : "x86_64";
      String resource = "/jni/libaws-lambda-jni.linux-" + arch + ".so";
      Path copy = Files.createTempFile("aws-lambda-jni-", ".so");
      copy.toFile().deleteOnExit();
      try (InputStream in = PackagedFunction.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(
              resource
                  + " is not on the test class path (aws-lambda-java-runtime-interface-client)");
        }
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      }
      runtimeClientJni = copy;
    }
    return runtimeClientJni;
  }

  /**
   * A folder holding only {@link AwsCallRecorder} and the SDK's resource that registers it as a
   * global interceptor, made once for this JVM's functions: the function's JVM loads it beside the
   * jar, which ships without it.
   */
  private static synchronized Path recorderClassPath() throws IOException {
    if (recorderClassPath == null) {
      Path dir = Files.createTempDirectory("aws-call-recorder-");
      String name = AwsCallRecorder.class.getName();
      Path classFile = dir.resolve(name.replace('.', '/') + ".class");
      Files.createDirectories(classFile.getParent());
      try (InputStream in =
          AwsCallRecorder.class.getResourceAsStream(
              AwsCallRecorder.class.getSimpleName() + ".class")) {
        Files.copy(in, classFile);
      }
      Path registration =
          dir.resolve("software/amazon/awssdk/global/handlers/execution.interceptors");
      Files.createDirectories(registration.getParent());
      Files.writeString(registration, name + "\n");
      recorderClassPath = dir;
    }
    return recorderClassPath;
  }

  /** The runtime interface client and its own dependencies, taken from this JVM's class path. */
  private static String runtimeClientClassPath() {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = Paths.get(entry).getFileName().toString();
      if (name.startsWith("aws-lambda-java-runtime-interface-client")
          || name.startsWith("aws-lambda-java-serialization")
          || name.startsWith("aws-lambda-java-core")) {
        entries.add(entry);
      }
    }
    if (entries.stream().noneMatch(e -> e.contains("runtime-interface-client"))) {
      throw new IllegalStateException(
          "aws-lambda-java-runtime-interface-client is not on the test class path");
    }
    return String.join(File.pathSeparator, entries);
  }

  /** The function JVM's process id. */
  public long pid() {
    return process.pid();
  }

  /** Whether the function's JVM is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Kills the function's JVM with SIGKILL ({@link Process#destroyForcibly()} on Linux), as Lambda
   * ends an environment that overran its timeout or memory, or a host that died: no shutdown hook,
   * no finally block runs. Returns its exit status once it is gone: 137 (128 + 9) for SIGKILL.
   */
  public int kill() throws InterruptedException {
    process.destroyForcibly();
    return process.waitFor();
  }

  @Override
  public void close() {
    process.destroy();
    // A frozen environment (SIGSTOP) holds the SIGTERM until it runs again.
    Signals.send(process.pid(), "CONT");
    try {
      if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
