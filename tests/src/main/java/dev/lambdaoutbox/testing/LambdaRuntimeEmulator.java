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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
 * /2018-06-01/runtime/init/error}.
 */
public final class LambdaRuntimeEmulator implements AutoCloseable {
  private static final String PREFIX = "/2018-06-01/runtime/";

  /** What one invocation returned: the response body, or an error body with its type. */
  public record Result(String body, String errorType) {
    public boolean failed() {
      return errorType != null;
    }
  }

  private record Invocation(
      String id, String event, long deadlineMs, CompletableFuture<Result> result) {}

  private final HttpServer server;
  private final BlockingQueue<Invocation> pending = new LinkedBlockingQueue<>();
  private final Map<String, Invocation> running = new ConcurrentHashMap<>();
  private final CompletableFuture<String> initError = new CompletableFuture<>();

  public LambdaRuntimeEmulator() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newCachedThreadPool(r -> daemon(r)));
    server.createContext(PREFIX, this::handle);
    server.start();
  }

  /** The value for the runtime's {@code AWS_LAMBDA_RUNTIME_API} variable. */
  public String runtimeApi() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** Sends one event to the function and waits for its answer. */
  public Result invoke(String eventJson, Duration timeout)
      throws InterruptedException, TimeoutException {
    try {
      return submit(eventJson, timeout).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * Sends one event to the function ({@code timeout} is its deadline) without waiting: the result
   * completes with its answer, or never, when the function dies first.
   */
  public CompletableFuture<Result> submit(String eventJson, Duration timeout) {
    Invocation invocation =
        new Invocation(
            UUID.randomUUID().toString(),
            eventJson,
            System.currentTimeMillis() + timeout.toMillis(),
            new CompletableFuture<>());
    pending.add(invocation);
    return CompletableFuture.anyOf(
            invocation.result(), initError.thenApply(e -> new Result(e, "Runtime.InitError")))
        .thenApply(Result.class::cast);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath().substring(PREFIX.length());
      String body = read(exchange.getRequestBody());
      if (path.equals("invocation/next") && exchange.getRequestMethod().equals("GET")) {
        Invocation next = pending.take();
        running.put(next.id(), next);
        exchange.getResponseHeaders().add("Lambda-Runtime-Aws-Request-Id", next.id());
        exchange
            .getResponseHeaders()
            .add("Lambda-Runtime-Deadline-Ms", Long.toString(next.deadlineMs()));
        exchange
            .getResponseHeaders()
            .add(
                "Lambda-Runtime-Invoked-Function-Arn",
                "arn:aws:lambda:us-east-1:000000000000:function:local");
        exchange
            .getResponseHeaders()
            .add("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000");
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
