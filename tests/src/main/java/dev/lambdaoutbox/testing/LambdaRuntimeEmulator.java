package dev.lambdaoutbox.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The AWS Lambda Runtime API (the HTTP interface a Lambda runtime polls for invocations), served on
 * loopback, so a packaged function jar can run under AWS's own runtime interface client ({@code
 * com.amazonaws.services.lambda.runtime.api.client.AWSLambda}) in a separate JVM, exactly as the
 * managed {@code java21} runtime runs it. It plays the part of the Lambda service for one function,
 * with Lambda's lifecycle ("Understand the Lambda execution environment lifecycle",
 * https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html):
 *
 * <ul>
 *   <li><b>Execution environments</b>: each runtime process ({@link PackagedFunction}) has a
 *       Runtime API endpoint of its own ({@link #newEnvironment}), takes one invocation at a time,
 *       and takes the next when it is free.
 *   <li><b>Frozen between invocations</b>: when the runtime asks for the next invocation ({@code
 *       GET .../invocation/next}, which it does once it has posted its answer) and none is waiting,
 *       its process is stopped with SIGSTOP, so that no thread of it runs, and continued with
 *       SIGCONT when the next invocation is handed over. A thread the handler left running (a
 *       message not yet sent, a timer) waits for the environment's next invocation, as in Lambda.
 *   <li><b>Timeout</b>: an invocation that has not answered by its deadline is ended by killing its
 *       process (SIGKILL) mid-call; it answers {@code Sandbox.Timedout}, and a fresh environment
 *       takes the next invocation. A process that dies mid-call answers {@code Runtime.ExitError}.
 *   <li><b>Reserved concurrency</b>: with {@link #scaleOnDemand}, the emulator starts environments
 *       itself, as invocations need them, up to the function's reserved concurrency ("Configuring
 *       reserved concurrency",
 *       https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html); without it,
 *       the environments are those the test started. Never more invocations run at once.
 *   <li><b>The asynchronous event queue</b> ({@link #submit}, and {@code Invoke} with {@code
 *       InvocationType Event} at {@link #invokeEndpoint()}): events wait in the queue while every
 *       environment is busy (throttled), are discarded once older than the maximum event age, and
 *       one that fails runs again up to the retry attempts ({@link AsyncInvokeConfig}).
 * </ul>
 *
 * <p>Endpoints: {@code GET /2018-06-01/runtime/invocation/next}, {@code POST
 * .../invocation/{id}/response}, {@code POST .../invocation/{id}/error} and {@code POST
 * /2018-06-01/runtime/init/error} on each environment's endpoint; and Lambda's {@code POST
 * /2015-03-31/functions/{name}/invocations} with {@code InvocationType Event} or {@code DryRun}
 * ({@link #invokeEndpoint()}).
 */
public final class LambdaRuntimeEmulator implements AutoCloseable {
  private static final String PREFIX = "/2018-06-01/runtime/";
  private static final String INVOKE_PREFIX = "/2015-03-31/functions/";

  /** What one invocation returned: the response body, or an error body with its type. */
  public record Result(String body, String errorType) {
    public boolean failed() {
      return errorType != null;
    }

    /** Lambda's answer to an invocation that overran its timeout. */
    public boolean timedOut() {
      return "Sandbox.Timedout".equals(errorType);
    }
  }

  /**
   * Longest a function may take to start (its JVM and its handler's constructor) before it asks for
   * an invocation. Lambda allows 10 s; a JVM on a busy build machine can need more.
   */
  private static final Duration START_UP_LIMIT = Duration.ofMinutes(2);

  /** How much later than its deadline an invocation may answer and still be counted in time. */
  private static final Duration ANSWER_GRACE = Duration.ofSeconds(10);

  /** Lambda's header for the Cognito identity of a call, JSON the runtime client reads. */
  public static final String COGNITO_IDENTITY = "Lambda-Runtime-Cognito-Identity";

  /** Lambda's header for the client context a caller sent ({@code --client-context}), JSON. */
  public static final String CLIENT_CONTEXT = "Lambda-Runtime-Client-Context";

  /** Starts one execution environment of the function: its runtime process on {@code env}. */
  @FunctionalInterface
  public interface EnvironmentFactory {
    AutoCloseable start(Environment env) throws IOException;
  }

  /** One event, through all its attempts. */
  private static final class Invocation {
    final String event;
    final Duration timeout;
    final Map<String, String> headers;
    final boolean async;
    final long queuedAtNanos = System.nanoTime();
    final CompletableFuture<Void> taken = new CompletableFuture<>();
    final CompletableFuture<Result> result = new CompletableFuture<>();
    volatile String id;
    volatile int attempts;

    Invocation(String event, Duration timeout, Map<String, String> headers, boolean async) {
      this.event = event;
      this.timeout = timeout;
      this.headers = Map.copyOf(headers);
      this.async = async;
    }
  }

  private final HttpServer invokeServer;
  private final BlockingDeque<Invocation> ready = new LinkedBlockingDeque<>();
  private final List<Environment> environments = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> started = new CopyOnWriteArrayList<>();
  private final CompletableFuture<String> initError = new CompletableFuture<>();
  private final CompletableFuture<Long> firstPoll = new CompletableFuture<>();
  private final Duration invokedTimeout;
  private final AsyncInvokeConfig async;
  private final List<CompletableFuture<Result>> invokedByFunctions = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> daemon(r));
  private final ScheduledExecutorService timers;
  private final AtomicInteger mostRunning = new AtomicInteger();
  private final AtomicInteger discarded = new AtomicInteger();
  private volatile EnvironmentFactory factory;
  private volatile int reservedConcurrency;
  private volatile boolean closed;

  public LambdaRuntimeEmulator() throws IOException {
    this(Duration.ofSeconds(60));
  }

  /**
   * @param invokedTimeout the timeout of the invocations a function starts through the Invoke API
   *     ({@link #invokeEndpoint()})
   */
  public LambdaRuntimeEmulator(Duration invokedTimeout) throws IOException {
    this(invokedTimeout, AsyncInvokeConfig.AWS_DEFAULT);
  }

  /**
   * @param invokedTimeout the function's timeout, for the invocations started through the Invoke
   *     API ({@link #invokeEndpoint()})
   * @param async how the function's asynchronous invocations are retried and discarded
   */
  public LambdaRuntimeEmulator(Duration invokedTimeout, AsyncInvokeConfig async)
      throws IOException {
    this.invokedTimeout = invokedTimeout;
    this.async = Objects.requireNonNull(async, "async");
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, r -> daemon(r));
    pool.setRemoveOnCancelPolicy(true);
    this.timers = pool;
    invokeServer =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    invokeServer.setExecutor(threads);
    invokeServer.createContext(INVOKE_PREFIX, this::handleInvoke);
    invokeServer.start();
  }

  /** As the template deploys {@code function}: its timeout and its asynchronous invoke config. */
  public static LambdaRuntimeEmulator of(OutboxFunction function) throws IOException {
    return new LambdaRuntimeEmulator(function.timeout(), function.asyncInvokeConfig());
  }

  /**
   * From now on the emulator starts execution environments itself, with {@code factory}, whenever
   * an invocation waits and no environment is free, up to {@code reservedConcurrency} at once
   * (those the test started count too), as Lambda scales a function. An environment killed for its
   * timeout is replaced the same way. Closed with the emulator.
   */
  public void scaleOnDemand(EnvironmentFactory factory, int reservedConcurrency) {
    if (reservedConcurrency < 1) {
      throw new IllegalArgumentException("reservedConcurrency: at least 1");
    }
    this.reservedConcurrency = reservedConcurrency;
    this.factory = Objects.requireNonNull(factory, "factory");
    scale();
  }

  /**
   * A new execution environment: a Runtime API endpoint of its own, for one runtime process, which
   * the caller starts and then {@link Environment#attach attaches}.
   */
  public Environment newEnvironment() throws IOException {
    Environment env = new Environment();
    environments.add(env);
    return env;
  }

  /**
   * Lambda's own {@code Invoke} API, e.g. for a function that invokes itself or an application that
   * wakes one: set {@code AWS_ENDPOINT_URL_LAMBDA} to this. Asynchronous invocations ({@code
   * InvocationType Event}) are queued like {@link #submit} (whatever function they name: one
   * emulator runs one function) and answered 202 at once; {@code DryRun} is answered 204 and queues
   * nothing. Synchronous invocations are not served.
   */
  public String invokeEndpoint() {
    return "http://127.0.0.1:" + invokeServer.getAddress().getPort();
  }

  /** The invocations started through {@link #invokeEndpoint()}, in order, as answered. */
  public List<CompletableFuture<Result>> invokedByFunctions() {
    return List.copyOf(invokedByFunctions);
  }

  /** The most invocations that ran at once so far. */
  public int mostRunningAtOnce() {
    return mostRunning.get();
  }

  /** Asynchronous events discarded for their age, never run. */
  public int discardedEvents() {
    return discarded.get();
  }

  /** Environments started so far, by the test or on demand, including those gone. */
  public int environmentsStarted() {
    return environments.size();
  }

  private void handleInvoke(HttpExchange exchange) throws IOException {
    try (exchange) {
      String type = exchange.getRequestHeaders().getFirst("X-Amz-Invocation-Type");
      String body = read(exchange.getRequestBody());
      exchange.getResponseHeaders().add("x-amzn-RequestId", UUID.randomUUID().toString());
      if (exchange.getRequestMethod().equals("POST") && "DryRun".equals(type)) {
        exchange.sendResponseHeaders(204, -1);
        return;
      }
      if (!exchange.getRequestMethod().equals("POST") || !"Event".equals(type)) {
        exchange.getResponseHeaders().add("x-amzn-ErrorType", "InvalidRequestContentException");
        respond(
            exchange,
            400,
            "{\"message\":\"this emulator serves only asynchronous invocations"
                + " (X-Amz-Invocation-Type: Event) and DryRun, not "
                + type
                + "\"}");
        return;
      }
      invokedByFunctions.add(enqueue(body, invokedTimeout, Map.of(), true).result);
      exchange.sendResponseHeaders(202, -1);
    }
  }

  /**
   * Sends one event to the function and waits for its answer, as a synchronous invocation. As in
   * Lambda, {@code timeout} is the invocation's own: its deadline is set when an environment takes
   * the event, so the function's start-up (up to {@link #START_UP_LIMIT}) does not count against
   * it; past it the environment is killed and the answer is {@code Sandbox.Timedout}.
   *
   * @throws TimeoutException when no environment took the event within the start-up limit, or the
   *     answer did not come within the timeout and a grace
   */
  public Result invoke(String eventJson, Duration timeout)
      throws InterruptedException, TimeoutException {
    return invoke(eventJson, timeout, Map.of());
  }

  /**
   * As {@link #invoke(String, Duration)}, the invocation carrying what Lambda passes beside the
   * event, e.g. {@link #COGNITO_IDENTITY} and {@link #CLIENT_CONTEXT}, as headers of the next
   * invocation.
   */
  public Result invoke(String eventJson, Duration timeout, Map<String, String> headers)
      throws InterruptedException, TimeoutException {
    Invocation invocation = enqueue(eventJson, timeout, headers, false);
    try {
      CompletableFuture.anyOf(invocation.taken, failedToStart())
          .get(START_UP_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      return answer(invocation).get(timeout.plus(ANSWER_GRACE).toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * Sends one event to the function asynchronously, through the event queue: the result completes
   * with the answer of its last attempt (after the retries an error earns), with {@code
   * EventAgeExceeded} when it was discarded unrun, or never, when the emulator is closed first. As
   * with {@link #invoke}, {@code timeout} is the deadline the function sees, counted from when an
   * environment takes the event.
   */
  public CompletableFuture<Result> submit(String eventJson, Duration timeout) {
    return answer(enqueue(eventJson, timeout, Map.of(), true));
  }

  private Invocation enqueue(
      String eventJson, Duration timeout, Map<String, String> headers, boolean isAsync) {
    Invocation invocation = new Invocation(eventJson, timeout, headers, isAsync);
    if (isAsync) {
      timers.schedule(
          () -> discardIfQueued(invocation),
          async.maximumEventAge().toMillis(),
          TimeUnit.MILLISECONDS);
    }
    ready.add(invocation);
    scale();
    return invocation;
  }

  /** Lambda discards an event still in its queue at the maximum event age. */
  private void discardIfQueued(Invocation invocation) {
    if (ready.remove(invocation)) {
      discarded.incrementAndGet();
      invocation.result.complete(
          new Result(
              "{\"errorType\":\"EventAgeExceeded\",\"errorMessage\":\"discarded after "
                  + async.maximumEventAge().toSeconds()
                  + " s in the event queue\"}",
              "EventAgeExceeded"));
    }
  }

  /** The function's answer to {@code invocation}, or its init error should it fail to start. */
  private CompletableFuture<Result> answer(Invocation invocation) {
    return CompletableFuture.anyOf(invocation.result, failedToStart())
        .thenApply(Result.class::cast);
  }

  private CompletableFuture<Result> failedToStart() {
    return initError.thenApply(e -> new Result(e, "Runtime.InitError"));
  }

  /** What an attempt of {@code invocation} ended with; retries an asynchronous one that failed. */
  private void attemptEnded(Invocation invocation, Result result) {
    int attempt = invocation.attempts;
    if (invocation.async && result.failed() && attempt <= async.maximumRetryAttempts()) {
      long age = System.nanoTime() - invocation.queuedAtNanos;
      long delay = async.retryDelay(attempt).toNanos();
      if (age + delay < async.maximumEventAge().toNanos() && !closed) {
        timers.schedule(
            () -> {
              ready.add(invocation);
              scale();
            },
            delay,
            TimeUnit.NANOSECONDS);
        return;
      }
    }
    invocation.result.complete(result);
  }

  /** Starts environments on demand for the invocations that wait, within the concurrency. */
  private synchronized void scale() {
    EnvironmentFactory f = factory;
    if (f == null || closed) {
      return;
    }
    long alive = environments.stream().filter(e -> !e.gone).count();
    long idle = environments.stream().filter(e -> !e.gone && e.waiting).count();
    long starting = environments.stream().filter(e -> !e.gone && !e.polled).count();
    long wanted = ready.size() - idle - starting;
    for (long i = 0; i < wanted && alive < reservedConcurrency; i++, alive++) {
      Environment env;
      try {
        env = newEnvironment();
      } catch (IOException e) {
        initError.complete("could not start an environment: " + e);
        return;
      }
      threads.execute(
          () -> {
            try {
              started.add(f.start(env));
            } catch (IOException | RuntimeException e) {
              env.gone = true;
              initError.complete("could not start an environment: " + e);
            }
          });
    }
  }

  private void countRunning() {
    int running = (int) environments.stream().filter(e -> e.current != null).count();
    mostRunning.accumulateAndGet(running, Math::max);
  }

  /**
   * One execution environment: the Runtime API endpoint of one runtime process, which it stops
   * (SIGSTOP) while no invocation is handed to it and kills when an invocation times out.
   */
  public final class Environment {
    private final HttpServer server;
    private volatile Process process;
    private volatile Invocation current;
    private volatile boolean frozen;
    private volatile boolean waiting;
    private volatile boolean polled;
    private volatile boolean gone;
    private volatile int invocations;

    private Environment() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      server.setExecutor(threads);
      server.createContext(PREFIX, this::handle);
      server.start();
    }

    /** The value for the runtime's {@code AWS_LAMBDA_RUNTIME_API} variable. */
    public String runtimeApi() {
      return "127.0.0.1:" + server.getAddress().getPort();
    }

    /** The runtime process serving this environment, once started. */
    public void attach(Process runtime) {
      this.process = Objects.requireNonNull(runtime, "runtime");
      runtime.onExit().thenRun(this::exited);
    }

    /** Invocations this environment has taken. */
    public int invocations() {
      return invocations;
    }

    /** Whether its process is stopped between invocations now. */
    public boolean isFrozen() {
      return frozen;
    }

    private void handle(HttpExchange exchange) throws IOException {
      try (exchange) {
        String path = exchange.getRequestURI().getPath().substring(PREFIX.length());
        String body = read(exchange.getRequestBody());
        if (path.equals("invocation/next") && exchange.getRequestMethod().equals("GET")) {
          firstPoll.complete(System.nanoTime());
          polled = true;
          Invocation next = next();
          if (next == null) {
            return; // gone, or the emulator closed: nobody reads the answer
          }
          hand(exchange, next);
        } else if (path.startsWith("invocation/") && path.endsWith("/response")) {
          ended(path, new Result(body, null));
          respond(exchange, 202, "{}");
        } else if (path.startsWith("invocation/") && path.endsWith("/error")) {
          String type = exchange.getRequestHeaders().getFirst("Lambda-Runtime-Function-Error-Type");
          ended(path, new Result(body, type == null ? "Unhandled" : type));
          respond(exchange, 202, "{}");
        } else if (path.equals("init/error")) {
          initError.complete(body);
          respond(exchange, 202, "{}");
        } else {
          respond(exchange, 404, "{\"message\":\"unknown runtime API path " + path + "\"}");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /**
     * The next invocation for this environment: at once if one waits; else, as Lambda freezes an
     * environment whose runtime asked for the next event when none is pending, stopped until one
     * comes. Null when the environment or the emulator goes first.
     */
    private Invocation next() throws InterruptedException {
      current = null;
      Invocation next = ready.pollFirst();
      if (next == null) {
        freeze();
        waiting = true;
        scale();
        try {
          while (next == null) {
            if (gone || closed) {
              return null;
            }
            next = ready.pollFirst(50, TimeUnit.MILLISECONDS);
          }
          if (gone || closed) {
            ready.addFirst(next);
            return null;
          }
        } finally {
          waiting = false;
        }
        thaw();
      }
      return next;
    }

    private void hand(HttpExchange exchange, Invocation next) throws IOException {
      String id = UUID.randomUUID().toString();
      next.id = id;
      next.attempts++;
      invocations++;
      current = next;
      countRunning();
      long deadlineMs = System.currentTimeMillis() + next.timeout.toMillis();
      timers.schedule(() -> timedOut(next, id), next.timeout.toMillis(), TimeUnit.MILLISECONDS);
      next.taken.complete(null);
      exchange.getResponseHeaders().add("Lambda-Runtime-Aws-Request-Id", id);
      exchange.getResponseHeaders().add("Lambda-Runtime-Deadline-Ms", Long.toString(deadlineMs));
      exchange
          .getResponseHeaders()
          .add(
              "Lambda-Runtime-Invoked-Function-Arn",
              "arn:aws:lambda:us-east-1:000000000000:function:local");
      exchange
          .getResponseHeaders()
          .add("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000");
      next.headers.forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
      respond(exchange, 200, next.event);
    }

    private void ended(String path, Result result) {
      String id = path.substring("invocation/".length(), path.lastIndexOf('/'));
      Invocation invocation = current;
      if (invocation != null && id.equals(invocation.id)) {
        current = null;
        attemptEnded(invocation, result);
      }
    }

    /** Lambda ends an invocation at its timeout by stopping the environment mid-call. */
    private void timedOut(Invocation invocation, String id) {
      if (current != invocation || !id.equals(invocation.id)) {
        return;
      }
      current = null;
      kill();
      attemptEnded(
          invocation,
          new Result(
              String.format(
                  Locale.ROOT,
                  "{\"errorType\":\"Sandbox.Timedout\",\"errorMessage\":\"RequestId: %s Error: Task"
                      + " timed out after %.2f seconds\"}",
                  id,
                  invocation.timeout.toMillis() / 1000.0),
              "Sandbox.Timedout"));
      scale();
    }

    /** The runtime process ended (killed, crashed or closed): mid-call, the call fails. */
    private void exited() {
      gone = true;
      server.stop(0);
      Invocation invocation = current;
      if (invocation != null) {
        current = null;
        attemptEnded(
            invocation,
            new Result(
                "{\"errorType\":\"Runtime.ExitError\",\"errorMessage\":\"RequestId: "
                    + invocation.id
                    + " Error: Runtime exited\"}",
                "Runtime.ExitError"));
      }
      scale();
    }

    private void kill() {
      gone = true;
      Process p = process;
      if (p != null) {
        p.destroyForcibly(); // SIGKILL: works on a stopped process too
        try {
          p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      server.stop(0);
    }

    private void freeze() {
      Process p = process;
      if (p != null && p.isAlive() && !frozen) {
        Signals.send(p.pid(), "STOP");
        frozen = true;
      }
    }

    private void thaw() {
      Process p = process;
      if (frozen && p != null) {
        Signals.send(p.pid(), "CONT");
      }
      frozen = false;
    }

    private void close() {
      gone = true;
      server.stop(0);
      Process p = process;
      if (frozen && p != null && p.isAlive()) {
        thaw(); // so that the runtime's own close (SIGTERM) is not held until it runs again
      }
    }
  }

  /**
   * When the function first asked for an invocation ({@link System#nanoTime()}): the end of its
   * init phase, in which the runtime client loaded and constructed the handler.
   */
  public long awaitFirstPoll(Duration timeout) throws InterruptedException, TimeoutException {
    try {
      return firstPoll.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private static String read(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "lambda-runtime-api");
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    closed = true;
    List<Exception> failures = new ArrayList<>();
    for (AutoCloseable environment : started) {
      try {
        environment.close();
      } catch (Exception e) {
        failures.add(e);
      }
    }
    environments.forEach(Environment::close);
    invokeServer.stop(0);
    timers.shutdownNow();
    threads.shutdownNow();
    if (!failures.isEmpty()) {
      IllegalStateException e = new IllegalStateException("could not close an environment");
      failures.forEach(e::addSuppressed);
      throw e;
    }
  }
}
