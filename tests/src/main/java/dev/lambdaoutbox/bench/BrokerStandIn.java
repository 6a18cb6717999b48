package dev.lambdaoutbox.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A broker with AWS's latency and none of its work: an HTTP server on loopback that answers SQS
 * {@code SendMessage}/{@code SendMessageBatch} and SNS {@code Publish}/{@code PublishBatch} as the
 * services do ({@link BrokerCalls}), each call after a delay drawn uniformly from a range (default
 * 15-25 ms, about what SQS and SNS take in one region), accepting every message. It records, per
 * message with an {@code eventId} attribute, the moment it answered (wall clock, microseconds): the
 * time the publisher learns the broker has the message. The poller's SDK clients reach it through
 * the endpoint override ({@code AWS_ENDPOINT_URL}, or {@link #endpoint()}).
 *
 * <p>Run it in a process of its own ({@link BrokerStandInProcess}, {@link #main}) when the
 * publisher's CPU time is measured; its records are read over HTTP: {@code GET
 * /_standin/accepted?from=N} gives lines {@code eventId micros} from the N-th on, {@code GET
 * /_standin/stats} gives {@code calls messages callMicros connections} (connections: the client
 * addresses calls came from, one per connection opened).
 *
 * <pre>
 * java -cp ... dev.lambdaoutbox.bench.BrokerStandIn [MIN_MS MAX_MS [PORT]]   default 15 25 0
 * </pre>
 */
public final class BrokerStandIn implements AutoCloseable {
  private final HttpServer server;
  private final HttpsServer tlsServer;
  private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
  private final long minMicros;
  private final long maxMicros;
  private final List<String> accepted = new ArrayList<>();
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong callMicros = new AtomicLong();

  /** Each client address a call came from: one per connection the clients opened. */
  private final Set<InetSocketAddress> connections = ConcurrentHashMap.newKeySet();

  /** Listens on 127.0.0.1:{@code port} (0: a free one), answering after min..max of delay. */
  public BrokerStandIn(Duration min, Duration max, int port) throws IOException {
    this(min, max, port, null);
  }

  /**
   * As {@link #BrokerStandIn(Duration, Duration, int)}, and with {@code tls} not null also over
   * HTTPS on a free port of its own ({@link #tlsEndpoint()}), as AWS's endpoints answer; its
   * records are read over plain HTTP all the same.
   */
  public BrokerStandIn(Duration min, Duration max, int port, SSLContext tls) throws IOException {
    if (min.isNegative() || max.compareTo(min) < 0) {
      throw new IllegalArgumentException(
          "delay: need 0 <= min <= max, got min " + min + ", max " + max);
    }
    this.minMicros = min.toNanos() / 1000;
    this.maxMicros = max.toNanos() / 1000;
    this.server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
    server.setExecutor(handlers);
    server.createContext("/_standin/accepted", this::readAccepted);
    server.createContext("/_standin/stats", this::readStats);
    server.createContext("/", this::publish);
    server.start();
    if (tls == null) {
      this.tlsServer = null;
    } else {
      this.tlsServer =
          HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
      tlsServer.setHttpsConfigurator(new HttpsConfigurator(tls));
      tlsServer.setExecutor(handlers);
      tlsServer.createContext("/", this::publish);
      tlsServer.start();
    }
  }

  /**
   * Args: min and max delay in ms (15, 25), port (0), and a PKCS12 key store and its password to
   * answer over HTTPS too. Prints the endpoints it listens on.
   */
  public static void main(String[] args) throws Exception {
    long min = args.length > 0 ? Long.parseLong(args[0]) : 15;
    long max = args.length > 1 ? Long.parseLong(args[1]) : 25;
    int port = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    SSLContext tls = args.length > 4 ? tls(Path.of(args[3]), args[4].toCharArray()) : null;
    BrokerStandIn broker =
        new BrokerStandIn(Duration.ofMillis(min), Duration.ofMillis(max), port, tls);
    // The parent process reads this line for the endpoints.
    System.out.println(
        "listening on "
            + broker.endpoint()
            + (broker.tlsServer == null ? "" : " " + broker.tlsEndpoint()));
    System.out.flush();
    Thread.currentThread().join();
  }

  private static SSLContext tls(Path keyStore, char[] password) throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(keyStore)) {
      keys.load(in, password);
    }
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(keys, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(factory.getKeyManagers(), null, null);
    return context;
  }

  /** Where SDK clients send over HTTPS: {@code https://127.0.0.1:PORT}; only with TLS. */
  public URI tlsEndpoint() {
    return URI.create("https://127.0.0.1:" + tlsServer.getAddress().getPort());
  }

  /** Where SDK clients send: {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** A queue URL on this broker (any name is accepted). */
  public static String queueUrl(URI endpoint, String name) {
    return endpoint + "/000000000000/" + name;
  }

  private void publish(HttpExchange exchange) throws IOException {
    long received = EventTimes.nowMicros();
    connections.add(exchange.getRemoteAddress());
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
      BrokerCalls.Call call = BrokerCalls.parse(target, body);
      if (call == null) {
        byte[] error =
            BrokerCalls.unknownAction(
                target != null ? target : new String(body, StandardCharsets.UTF_8));
        exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
        exchange.sendResponseHeaders(400, error.length);
        exchange.getResponseBody().write(error);
        return;
      }
      long delay = ThreadLocalRandom.current().nextLong(minMicros, maxMicros + 1);
      long wait = received + delay - EventTimes.nowMicros();
      if (wait > 0) {
        Thread.sleep(Duration.ofNanos(wait * 1000));
      }
      long answered = EventTimes.nowMicros();
      synchronized (accepted) {
        for (BrokerCalls.Entry e : call.entries()) {
          if (e.eventId() != null) {
            accepted.add(e.eventId() + " " + answered);
          }
        }
      }
      calls.incrementAndGet();
      messages.addAndGet(call.entries().size());
      callMicros.addAndGet(answered - received);
      exchange.getResponseHeaders().set("Content-Type", call.contentType());
      exchange.getResponseHeaders().set("x-amzn-RequestId", "standin-" + calls.get());
      exchange.sendResponseHeaders(200, call.answer().length);
      exchange.getResponseBody().write(call.answer());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void readAccepted(HttpExchange exchange) throws IOException {
    String query = exchange.getRequestURI().getQuery();
    int from =
        query != null && query.startsWith("from=") ? Integer.parseInt(query.substring(5)) : 0;
    StringBuilder out = new StringBuilder();
    synchronized (accepted) {
      for (int i = from; i < accepted.size(); i++) {
        out.append(accepted.get(i)).append('\n');
      }
    }
    text(exchange, out.toString());
  }

  private void readStats(HttpExchange exchange) throws IOException {
    text(
        exchange,
        calls.get()
            + " "
            + messages.get()
            + " "
            + callMicros.get()
            + " "
            + connections.size()
            + "\n");
  }

  private static void text(HttpExchange exchange, String text) throws IOException {
    try (exchange;
        OutputStream out = exchange.getResponseBody()) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain");
      exchange.sendResponseHeaders(200, bytes.length);
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    if (tlsServer != null) {
      tlsServer.stop(0);
    }
    handlers.shutdownNow();
  }
}
