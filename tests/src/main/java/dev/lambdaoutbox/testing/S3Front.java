package dev.lambdaoutbox.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP front for the test bed's S3 (LocalStack): every request is forwarded to it, answered as
 * it answers, and, on demand, made slow or failed the way S3 fails. LocalStack's S3 cannot be made
 * slow or failing on demand, and a mock S3 client would skip the SDK's own timeouts, retries and
 * error parsing that decide what the poller sees; a front in the path keeps all of them real.
 *
 * <p>It is also stricter than LocalStack where AWS documents a check LocalStack skips: a request
 * whose {@code x-amz-expected-bucket-owner} is not the test bed's account ({@link
 * AwsEndpoint#ACCOUNT}, which owns every bucket there) is refused with 403 {@code AccessDenied}, as
 * S3 refuses it ("Verifying bucket ownership with bucket owner condition",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-owner-condition.html).
 *
 * <p>Clients reach it on {@link #uri()} with path-style addressing (an IP endpoint makes the SDK
 * use it).
 */
public final class S3Front implements AutoCloseable {
  /** Headers the JDK's HTTP client sets itself and refuses to be given. */
  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding");

  private final URI target;
  private final HttpServer server;
  private final ExecutorService threads;
  private final HttpClient client;
  private final AtomicInteger puts = new AtomicInteger();
  private final AtomicInteger gets = new AtomicInteger();
  private volatile Duration delay = Duration.ZERO;
  private volatile S3Error failure;

  /** An error S3 answers with: HTTP status and S3 error code. */
  public record S3Error(int status, String code) {
    /** S3 asks the client to slow down (503). */
    public static final S3Error SLOW_DOWN = new S3Error(503, "SlowDown");
  }

  private S3Front(URI target) throws IOException {
    this.target = target;
    AtomicInteger next = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            task -> {
              Thread t = new Thread(task, "s3-front-" + next.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .executor(threads)
            .build();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A front forwarding to {@code target} (the test bed's S3 endpoint), on a free port. */
  public static S3Front to(URI target) {
    try {
      return new S3Front(target);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where clients connect: {@code http://127.0.0.1:<port>}. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Every request waits this long before it is forwarded (zero: none). */
  public void delay(Duration delay) {
    this.delay = delay;
  }

  /** Every request is answered with {@code error} instead of being forwarded (null: none). */
  public void fail(S3Error error) {
    this.failure = error;
  }

  /** Forwards as LocalStack answers again, without delay or failure. */
  public void normal() {
    delay = Duration.ZERO;
    failure = null;
  }

  /** PutObject requests received, answered or not. */
  public int puts() {
    return puts.get();
  }

  /** GetObject requests received, answered or not. */
  public int gets() {
    return gets.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (method.equals("PUT")) {
        puts.incrementAndGet();
      } else if (method.equals("GET")) {
        gets.incrementAndGet();
      }
      byte[] body = exchange.getRequestBody().readAllBytes();
      Duration wait = delay;
      if (!wait.isZero()) {
        try {
          Thread.sleep(wait.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      String owner = exchange.getRequestHeaders().getFirst("x-amz-expected-bucket-owner");
      S3Error error = failure;
      if (error == null && owner != null && !owner.equals(AwsEndpoint.ACCOUNT)) {
        error = new S3Error(403, "AccessDenied");
      }
      if (error != null) {
        answer(exchange, error);
        return;
      }
      forward(exchange, method, body);
    }
  }

  private void forward(HttpExchange exchange, String method, byte[] body) throws IOException {
    URI uri = target.resolve(exchange.getRequestURI().getRawPath());
    String query = exchange.getRequestURI().getRawQuery();
    if (query != null) {
      uri = URI.create(uri + "?" + query);
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    for (Map.Entry<String, List<String>> h : exchange.getRequestHeaders().entrySet()) {
      if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        h.getValue().forEach(v -> request.header(h.getKey(), v));
      }
    }
    HttpResponse<InputStream> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    response
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                exchange.getResponseHeaders().put(name, values);
              }
            });
    // -1: no body; 0: a body of unknown length (chunked); otherwise its length.
    long length = response.headers().firstValueAsLong("content-length").orElse(0);
    int status = response.statusCode();
    boolean noBody = method.equals("HEAD") || status == 204 || status == 304;
    if (noBody && length > 0) {
      exchange.getResponseHeaders().set("Content-Length", Long.toString(length));
    }
    boolean known = response.headers().firstValue("content-length").isPresent();
    exchange.sendResponseHeaders(status, noBody || (known && length == 0) ? -1 : length);
    try (InputStream in = response.body()) {
      if (!noBody) {
        in.transferTo(exchange.getResponseBody());
      }
    }
  }

  private static void answer(HttpExchange exchange, S3Error error) throws IOException {
    byte[] xml =
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
                + error.code()
                + "</Code><Message>"
                + error.code()
                + " (the test's S3 front)</Message><RequestId>front</RequestId></Error>")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/xml");
    exchange.sendResponseHeaders(error.status(), xml.length);
    exchange.getResponseBody().write(xml);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
