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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The AWS Lambda Runtime API (the HTTP interface a Lambda runtime polls for invocations), served on
 * loopback, so a packaged function jar can run under AWS's own runtime interface client ({@code
 * com.amazonaws.services.lambda.runtime.api.client.AWSLambda}) in a separate JVM, exactly as the
 * managed {@code java21} runtime runs it. It plays the part of the Lambda Runtime Interface
 * Emulator.
 *
 * <p>Endpoints: {@code GET /2018-06-01/runtime/invocation/next}, {@code POST
 * .../invocation/{id}/response}, {@code POST .../invocation/{id}/error} and {@code POST
 * /2018-06-01/runtime/init/error}; and, for a function that invokes itself, Lambda's {@code POST
 * /2015-03-31/functions/{name}/invocations} with {@code InvocationType Event} ({@link
 * #invokeEndpoint()}). Several runtime processes may poll one emulator: each takes the next
 * invocation when it is free, as Lambda's concurrent execution environments do.
 */
public final class LambdaRuntimeEmulator implements AutoCloseable {
  private static final String PREFIX = "/2018-06-01/runtime/";
  private static final String INVOKE_PREFIX = "/2015-03-31/functions/";

  /** What one invocation returned: the response body, or an error body with its type. */
  public record Result(String body, String errorType) {
    public boolean failed() {
      return errorType != null;
    }
  }

  /**
   * Longest a function may take to start (its JVM and its handler's constructor) before it asks for
   * an invocation. Lambda allows 10 s; a JVM on a busy build machine can need more.
   */
  private static final Duration START_UP_LIMIT = Duration.ofMinutes(2);

  private record Invocation(
      String id,
      String event,
      Duration timeout,
      Map<String, String> headers,
      CompletableFuture<Void> taken,
      CompletableFuture<Result> result) {}

  /** Lambda's header for the Cognito identity of a call, JSON the runtime client reads. */
  public static final String COGNITO_IDENTITY = "Lambda-Runtime-Cognito-Identity";

  /** Lambda's header for the client context a caller sent ({@code --client-context}), JSON. */
  public static final String CLIENT_CONTEXT = "Lambda-Runtime-Client-Context";

  private final HttpServer server;
  private final BlockingQueue<Invocation> pending = new LinkedBlockingQueue<>();
  private final Map<String, Invocation> running = new ConcurrentHashMap<>();
  private final CompletableFuture<String> initError = new CompletableFuture<>();
  private final CompletableFuture<Long> firstPoll = new CompletableFuture<>();
  private final Duration invokedTimeout;
  private final List<CompletableFuture<Result>> invokedByFunctions = new CopyOnWriteArrayList<>();

  public LambdaRuntimeEmulator() throws IOException {
    this(Duration.ofSeconds(60));
  }

  /**
   * @param invokedTimeout the timeout of the invocations a function starts through the Invoke API
   *     ({@link #invokeEndpoint()})
   */
  public LambdaRuntimeEmulator(Duration invokedTimeout) throws IOException {
    this.invokedTimeout = invokedTimeout;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newCachedThreadPool(r -> daemon(r)));
    server.createContext(PREFIX, this::handle);
    server.createContext(INVOKE_PREFIX, this::handleInvoke);
    server.start();
  }

  /**
   * Lambda's own {@code Invoke} API, for a function that invokes itself: set the function's {@code
   * AWS_ENDPOINT_URL_LAMBDA} to this. Only asynchronous invocations ({@code InvocationType Event})
   * are served: each is queued like {@link #submit} (whatever function it names: one emulator runs
   * one function) and answered 202 at once.
   */
  public String invokeEndpoint() {
    return "http://" + runtimeApi();
  }

  /** The invocations functions started through {@link #invokeEndpoint()}, in order, as answered. */
  public List<CompletableFuture<Result>> invokedByFunctions() {
    return List.copyOf(invokedByFunctions);
  }

  private void handleInvoke(HttpExchange exchange) throws IOException {
    try (exchange) {
      String type = exchange.getRequestHeaders().getFirst("X-Amz-Invocation-Type");
      String body = read(exchange.getRequestBody());
      if (!exchange.getRequestMethod().equals("POST") || !"Event".equals(type)) {
        exchange.getResponseHeaders().add("x-amzn-ErrorType", "InvalidRequestContentException");
        respond(
            exchange,
            400,
            "{\"message\":\"this emulator serves only asynchronous invocations"
                + " (X-Amz-Invocation-Type: Event), not "
                + type
                + "\"}");
        return;
      }
      invokedByFunctions.add(submit(body, invokedTimeout));
      exchange.getResponseHeaders().add("x-amzn-RequestId", UUID.randomUUID().toString());
      exchange.sendResponseHeaders(202, -1);
    }
  }

  /** The value for the runtime's {@code AWS_LAMBDA_RUNTIME_API} variable. */
  public String runtimeApi() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * Sends one event to the function and waits for its answer. As in Lambda, {@code timeout} is the
   * invocation's own: its deadline is set when the runtime takes the event, so the function's
   * start-up (up to {@link #START_UP_LIMIT}) does not count against it.
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
    Invocation invocation = enqueue(eventJson, timeout, headers);
    try {
      CompletableFuture.anyOf(invocation.taken(), failedToStart())
          .get(START_UP_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      return answer(invocation).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * Sends one event to the function without waiting: the result completes with its answer, or
   * never, when the function dies first. As with {@link #invoke}, {@code timeout} is the deadline
   * the function sees, counted from when the runtime takes the event.
   */
  public CompletableFuture<Result> submit(String eventJson, Duration timeout) {
    return answer(enqueue(eventJson, timeout, Map.of()));
  }

  private Invocation enqueue(String eventJson, Duration timeout, Map<String, String> headers) {
    Invocation invocation =
        new Invocation(
            UUID.randomUUID().toString(),
            eventJson,
            timeout,
            Map.copyOf(headers),
            new CompletableFuture<>(),
            new CompletableFuture<>());
    pending.add(invocation);
    return invocation;
  }

  /** The function's answer to {@code invocation}, or its init error should it fail to start. */
  private CompletableFuture<Result> answer(Invocation invocation) {
    return CompletableFuture.anyOf(invocation.result(), failedToStart())
        .thenApply(Result.class::cast);
  }

  private CompletableFuture<Result> failedToStart() {
    return initError.thenApply(e -> new Result(e, "Runtime.InitError"));
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath().substring(PREFIX.length());
      String body = read(exchange.getRequestBody());
      if (path.equals("invocation/next") && exchange.getRequestMethod().equals("GET")) {
        firstPoll.complete(System.nanoTime());
        Invocation next = pending.take();
        running.put(next.id(), next);
        long deadlineMs = System.currentTimeMillis() + next.timeout().toMillis();
        next.taken().complete(null);
        exchange.getResponseHeaders().add("Lambda-Runtime-Aws-Request-Id", next.id());
        exchange.getResponseHeaders().add("Lambda-Runtime-Deadline-Ms", Long.toString(deadlineMs));
        exchange
            .getResponseHeaders()
            .add(
                "Lambda-Runtime-Invoked-Function-Arn",
                "arn:aws:lambda:us-east-1:000000000000:function:local");
        exchange
            .getResponseHeaders()
            .add("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000");
        next.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        respond(exchange, 200, next.event());
      } else if (path.startsWith("invocation/") && path.endsWith("/response")) {
        complete(path, new Result(body, null));
        respond(exchange, 202, "{}");
      } else if (path.startsWith("invocation/") && path.endsWith("/error")) {
        String type = exchange.getRequestHeaders().getFirst("Lambda-Runtime-Function-Error-Type");
        complete(path, new Result(body, type == null ? "Unhandled" : type));
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
   * When the function first asked for an invocation ({@link System#nanoTime()}): the end of its
   * init phase, in which the runtime client loaded and constructed the handler.
   */
  public long awaitFirstPoll(Duration timeout) throws InterruptedException, TimeoutException {
    try {
      return firstPoll.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private void complete(String path, Result result) {
    String id = path.substring("invocation/".length(), path.lastIndexOf('/'));
    Invocation invocation = running.remove(id);
    if (invocation != null) {
      invocation.result().complete(result);
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
    server.stop(0);
  }
}
