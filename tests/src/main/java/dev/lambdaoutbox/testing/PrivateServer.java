package dev.lambdaoutbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A server of the test bed's kind that belongs to one test alone, so the test may stop, restart or
 * kill it: {@code $OUTBOX_TESTBED_LOCAL_AWS serve-NAME PORT DIR} (see {@code scripts/local-aws
 * help}) run as a child of this JVM, on a free loopback port, with its state in a fresh directory
 * under {@code tests/target/private-servers/}. The shared test bed is never touched.
 *
 * <ul>
 *   <li>{@link #stop()} asks for the server's own clean shutdown; {@link #kill()} sends SIGKILL to
 *       it and every process it started; {@link #start()} brings it back on the same port with the
 *       same state directory, so clients reconnect to the same address.
 *   <li>Every start waits until the server answers as its clients will use it ({@link Spec#probe}).
 *   <li>{@link #close()} kills it and removes its directory; should the JVM exit first (a test that
 *       never closes it), a shutdown hook kills it. Its output stays in {@link #log()}.
 * </ul>
 *
 * <p>Factories for the kinds in use: {@link PrivateServers}.
 *
 * @param <T> how clients reach the server (a {@link TestDatabase}, an {@link AwsEndpoint})
 */
public final class PrivateServer<T> implements AutoCloseable {
  /** The variable {@code scripts/local-aws env} sets to the script's path. */
  public static final String SCRIPT_VARIABLE = "OUTBOX_TESTBED_LOCAL_AWS";

  private static final Duration READY_WITHIN = Duration.ofSeconds(120);
  private static final Duration STOP_WITHIN = Duration.ofSeconds(60);
  private static final int START_ATTEMPTS = 3;
  private static final String EXITED = "exited with status ";
  private static final Set<PrivateServer<?>> RUNNING = ConcurrentHashMap.newKeySet();
  private static final AtomicInteger NEXT = new AtomicInteger();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(PrivateServer::killQuietly), "private-servers"));
  }

  /** What differs between kinds of server. */
  public interface Spec<T> {
    /** The script's subcommand, e.g. {@code serve-postgres}. */
    String command();

    /** The signal for the server's own clean shutdown, e.g. {@code INT} for PostgreSQL. */
    String stopSignal();

    /** How clients reach the server on {@code port}. */
    T endpoint(int port);

    /** Returns once the server answers at {@code endpoint}; throws while it does not yet. */
    void probe(T endpoint) throws Exception;

    /** Variables the server runs with besides this JVM's (its settings). */
    default Map<String, String> environment() {
      return Map.of();
    }
  }

  private final Spec<T> spec;
  private final String name;
  private final Path dir;
  private final Path log;
  private int port;
  private T endpoint;
  private Process process;

  private PrivateServer(Spec<T> spec, String name, Path dir, Path log) {
    this.spec = spec;
    this.name = name;
    this.dir = dir;
    this.log = log;
  }

  /** Starts a private server of {@code spec}'s kind on a free port and waits until it answers. */
  public static <T> PrivateServer<T> start(Spec<T> spec) {
    String name = spec.command().replace("serve-", "") + "-" + ProcessHandle.current().pid();
    name += "-" + NEXT.incrementAndGet();
    Path root = PackagedFunction.projectRoot().resolve("tests/target/private-servers");
    PrivateServer<T> server;
    try {
      Files.createDirectories(root);
      Path dir = Files.createDirectories(root.resolve(name));
      server = new PrivateServer<>(spec, name, dir, root.resolve(name + ".log"));
    } catch (IOException e) {
      throw new UncheckedIOException("could not make a directory under " + root, e);
    }
    try {
      server.startOnFreePort();
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** How clients reach it; the same across restarts. */
  public synchronized T endpoint() {
    return endpoint;
  }

  public synchronized int port() {
    return port;
  }

  /** Everything the server printed, across restarts. */
  public Path log() {
    return log;
  }

  public synchronized boolean running() {
    return process != null && process.isAlive();
  }

  /** Starts it again (after {@link #stop} or {@link #kill}) and waits until it answers. */
  public synchronized void start() {
    if (running()) {
      throw new IllegalStateException(name + " is already running");
    }
    launch(false);
  }

  /**
   * The server's own clean shutdown ({@link Spec#stopSignal}); waits until it has exited, and kills
   * it when it has not within a minute.
   */
  public synchronized void stop() {
    if (!running()) {
      return;
    }
    signal(spec.stopSignal());
    try {
      if (!process.waitFor(STOP_WITHIN.toMillis(), TimeUnit.MILLISECONDS)) {
        kill();
        throw new IllegalStateException(
            name + " did not stop within " + STOP_WITHIN + " of SIG" + spec.stopSignal());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    }
  }

  /**
   * SIGKILL to the server and every process it started, as a crash would end them; returns once
   * they are all gone.
   */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    // The server first, so that it cannot start new children in place of the ones killed.
    List<ProcessHandle> all = new ArrayList<>();
    all.add(process.toHandle());
    all.addAll(process.descendants().toList());
    all.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle p : all) {
      try {
        p.onExit().get(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        throw new IllegalStateException(name + ": process " + p.pid() + " outlived SIGKILL", e);
      }
    }
    RUNNING.remove(this);
  }

  /** {@link #stop()}, down for {@code down}, then {@link #start()}. */
  public void restart(Duration down) throws InterruptedException {
    stop();
    Thread.sleep(down.toMillis());
    start();
  }

  /** Kills the server and removes its state directory. */
  @Override
  public synchronized void close() {
    try {
      kill();
    } finally {
      deleteTree(dir);
    }
  }

  @Override
  public String toString() {
    return name + " on 127.0.0.1:" + port;
  }

  private void startOnFreePort() {
    port = freePort();
    endpoint = spec.endpoint(port);
    launch(true);
  }

  /**
   * Starts the process and waits until it answers. A process that exits before that is started
   * again (up to {@value #START_ATTEMPTS} times): on a first start another process may have taken
   * the port between choosing and binding it ({@code newPortOnRetry}); after a kill the dead
   * server's children may hold its resources for a moment (PostgreSQL: "lock file postmaster.pid
   * already exists").
   */
  private void launch(boolean newPortOnRetry) {
    for (int attempt = 1; ; attempt++) {
      process = spawn();
      RUNNING.add(this);
      String problem = awaitReady();
      if (problem == null) {
        return;
      }
      kill();
      if (!problem.startsWith(EXITED) || attempt == START_ATTEMPTS) {
        throw new IllegalStateException(
            name + " " + problem + "; its output (" + log + ") ends with:\n" + tail());
      }
      if (newPortOnRetry) {
        port = freePort();
        endpoint = spec.endpoint(port);
      } else {
        pause(Duration.ofSeconds(2));
      }
    }
  }

  private Process spawn() {
    List<String> command =
        List.of(script(), spec.command(), Integer.toString(port), dir.toString());
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().putAll(spec.environment());
      return builder
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + String.join(" ", command), e);
    }
  }

  /** Null once the server answers; otherwise what went wrong. */
  private String awaitReady() {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        return EXITED + process.exitValue() + " before it answered";
      }
      try {
        spec.probe(endpoint);
        return null;
      } catch (Exception e) {
        last = e;
      }
      pause(Duration.ofMillis(200));
    }
    return "did not answer within " + READY_WITHIN + " (last probe: " + last + ")";
  }

  private void signal(String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      String output = new String(kill.getInputStream().readAllBytes());
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -s " + signal + " " + process.pid() + " failed: " + output.strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  private void killQuietly() {
    try {
      kill();
    } catch (RuntimeException e) {
      // The JVM is exiting; nothing more can be done about a server that will not die.
    }
  }

  private static String script() {
    String script = System.getenv(SCRIPT_VARIABLE);
    if (script == null || script.isBlank()) {
      throw new IllegalStateException(
          SCRIPT_VARIABLE
              + " is not set: tests that restart or kill a server run private ones with"
              + " scripts/local-aws serve-*. Start the local test bed first: `scripts/local-aws up"
              + " && eval \"$(scripts/local-aws env)\"` (or run everything with `make test`).");
    }
    if (!Files.isExecutable(Path.of(script))) {
      throw new IllegalStateException(
          SCRIPT_VARIABLE + "=" + script + " is not an executable file; run scripts/local-aws env");
    }
    return script;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Removes {@code root}; a symbolic link's target goes too (the script keeps a server's data under
   * /tmp, linked from its directory, when the server's account cannot enter the directory).
   */
  private static void deleteTree(Path root) {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      List<Path> all = paths.sorted(Comparator.reverseOrder()).toList();
      for (Path p : all) {
        if (Files.isSymbolicLink(p)) {
          Path target = p.resolveSibling(Files.readSymbolicLink(p));
          deleteTree(target);
        }
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not remove " + root, e);
    }
  }
}
