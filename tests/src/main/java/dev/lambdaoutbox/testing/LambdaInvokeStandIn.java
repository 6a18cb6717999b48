package dev.lambdaoutbox.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * Lambda's {@code Invoke} API ({@code POST /2015-03-31/functions/{name}/invocations}) on loopback,
 * answering every call one chosen way, as Lambda answers it: accepted (202), or refused with
 * Lambda's status, {@code x-amzn-ErrorType} and body for a function that does not exist, a caller
 * not allowed to invoke it, or a throttled call. Records each call.
 *
 * <p>A stand-in because nothing real on the test bed refuses these ways: LocalStack runs there
 * without its Lambda service (running functions needs Docker), enforces no IAM, and never
 * throttles; the Runtime API emulator accepts every asynchronous invocation. The client side, the
 * AWS SDK's Lambda client over HTTP, is the real one.
 */
public final class LambdaInvokeStandIn implements AutoCloseable {
  private static final String PREFIX = "/2015-03-31/functions/";

  /** How the stand-in answers. */
  public enum Answer {
    ACCEPTED(202, null, null),
    NO_SUCH_FUNCTION(
        404, "ResourceNotFoundException", "Function not found: arn:aws:lambda:::function:%s"),
    NOT_ALLOWED(
        403,
        "AccessDeniedException",
        "User: "
            + CALLER
            + " is not authorized to perform: lambda:InvokeFunction on resource: %s"
            + " because no resource-based policy allows the lambda:InvokeFunction action"),
    THROTTLED(429, "TooManyRequestsException", "Rate Exceeded.");

    private final int status;
    private final String errorType;
    private final String message;

    Answer(int status, String errorType, String message) {
      this.status = status;
      this.errorType = errorType;
      this.message = message;
    }

    public int status() {
      return status;
    }

    public String errorType() {
      return errorType;
    }
  }

  /**
   * Who the stand-in says called, when it refuses a caller: a role's session, as Lambda names it.
   */
  public static final String CALLER = "arn:aws:sts::123456789012:assumed-role/orders-app/i-0abc";

  /** One call as received: the function named, the invocation type, the event, when. */
  public record Call(String functionName, String invocationType, String event, long atNanos) {}

  private final HttpServer server;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile Answer answer;

  public LambdaInvokeStandIn(Answer answer) throws IOException {
    this.answer = Objects.requireNonNull(answer, "answer");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "lambda-invoke-stand-in");
              t.setDaemon(true);
              return t;
            }));
    server.createContext(PREFIX, this::handle);
    server.start();
  }

  /** Answers the calls from now on this way. */
  public void answer(Answer answer) {
    this.answer = Objects.requireNonNull(answer, "answer");
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /**
   * A Lambda client for {@code endpoint}, with test credentials, without retries and with a short
   * call timeout, as {@code PollerWaker} builds its own.
   */
  public static LambdaClient client(URI endpoint) {
    return LambdaClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(
            o ->
                o.retryStrategy(AwsRetryStrategy.doNotRetry())
                    .apiCallTimeout(Duration.ofSeconds(2)))
        .build();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getRawPath().substring(PREFIX.length());
      String function =
          URLDecoder.decode(path.substring(0, path.indexOf('/')), StandardCharsets.UTF_8);
      String event = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      calls.add(
          new Call(
              function,
              exchange.getRequestHeaders().getFirst("X-Amz-Invocation-Type"),
              event,
              System.nanoTime()));
      Answer now = answer;
      exchange.getResponseHeaders().add("x-amzn-RequestId", UUID.randomUUID().toString());
      if (now.errorType == null) {
        // Lambda answers a DryRun 204, an Event 202
        boolean dryRun =
            "DryRun".equals(exchange.getRequestHeaders().getFirst("X-Amz-Invocation-Type"));
        exchange.sendResponseHeaders(dryRun ? 204 : now.status, -1);
        return;
      }
      byte[] body =
          ("{\"Type\":\"User\",\"message\":\"" + now.message.formatted(function) + "\"}")
              .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("x-amzn-ErrorType", now.errorType);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(now.status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
