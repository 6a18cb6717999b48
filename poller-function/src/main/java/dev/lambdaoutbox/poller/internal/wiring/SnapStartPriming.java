package dev.lambdaoutbox.poller.internal.wiring;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.publish.BatchPublisher;
import dev.lambdaoutbox.poller.internal.publish.LazyPublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.model.OutboxMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * SnapStart's priming hook: before Lambda snapshots an initialised poller, it runs the code a first
 * invocation runs, so that the snapshot holds those classes loaded and compiled.
 *
 * <p>A snapshot is taken at deploy time, so priming touches nothing real: it builds the SNS/SQS
 * clients ({@link LazyPublisher#initialize()}) without calling them, publishes one SNS and one SQS
 * batch through the real path ({@link BatchPublisher}) to a stub on 127.0.0.1 in this JVM with
 * dummy credentials, and loads the JDBC driver without connecting (a connection would be dead after
 * a restore).
 *
 * <p>Without CRaC, {@link #register} is a no-op. A failure while priming is swallowed: an unprimed
 * snapshot is slower to warm up, not wrong. CRaC holds registered resources only weakly, so whoever
 * registers this keeps a reference to it.
 */
public final class SnapStartPriming implements Resource {
  private static final String STUB_ACCOUNT = "000000000000";

  private final PollerConfig config;
  private final LazyPublisher publisher;

  SnapStartPriming(PollerConfig config, LazyPublisher publisher) {
    this.config = Objects.requireNonNull(config, "config");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
  }

  /** Registers this hook with CRaC's global context; harmless where CRaC is absent. */
  SnapStartPriming register() {
    Core.getGlobalContext().register(this);
    return this;
  }

  @Override
  public void beforeCheckpoint(Context<? extends Resource> context) {
    prime();
  }

  @Override
  public void afterRestore(Context<? extends Resource> context) {
    // Nothing to renew: the database connection opens on first use, and the SDK clients resolve
    // credentials on each call.
  }

  /** Runs the priming; returns the batch calls the stub answered (two when all went well). */
  public int prime() {
    publisher.initialize();
    loadJdbcDriver();
    try {
      return publishToStub();
    } catch (IOException | RuntimeException e) {
      // A snapshot without this priming is only slower to warm up.
      return 0;
    }
  }

  private void loadJdbcDriver() {
    if (!(config.database() instanceof DatabaseSettings jdbc)) {
      return; // the Data API store has no driver: its client is built with the store
    }
    String driver =
        jdbc.jdbcUrl().startsWith("jdbc:postgresql:")
            ? "org.postgresql.Driver"
            : "com.mysql.cj.jdbc.Driver";
    try {
      Class.forName(driver);
    } catch (ClassNotFoundException | LinkageError e) {
      // The driver is missing from the jar: the first invocation reports that, with context.
    }
  }

  private int publishToStub() throws IOException {
    HttpServer stub =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger calls = new AtomicInteger();
    stub.createContext(
        "/",
        exchange -> {
          calls.incrementAndGet();
          answerEmptyBatch(exchange);
        });
    stub.start();
    URI endpoint = URI.create("http://127.0.0.1:" + stub.getAddress().getPort());
    StaticCredentialsProvider dummy =
        StaticCredentialsProvider.create(AwsBasicCredentials.create("priming", "priming"));
    Region region = Region.US_EAST_1;
    try (SnsClient sns =
            AwsClients.snsBuilder(config.timing().publishTimeout())
                .endpointOverride(endpoint)
                .region(region)
                .credentialsProvider(dummy)
                .build();
        SqsClient sqs =
            AwsClients.sqsBuilder(config.timing().publishTimeout())
                .endpointOverride(endpoint)
                .region(region)
                .credentialsProvider(dummy)
                .build();
        BatchPublisher stubbed = PollerWiring.publisher(config, sns, sqs)) {
      stubbed.publish(
          List.of(
              message("arn:aws:sns:us-east-1:" + STUB_ACCOUNT + ":priming"),
              message("https://sqs.us-east-1.amazonaws.com/" + STUB_ACCOUNT + "/priming")),
          PublishGate.open());
    } finally {
      stub.stop(0);
    }
    return calls.get();
  }

  private static OutboundMessage message(String destination) {
    Instant now = Instant.now();
    String payload = "{\"priming\":true}";
    OutboxMessage row =
        new OutboxMessage(
            UUID.randomUUID(),
            "priming",
            "priming",
            "priming",
            payload,
            Map.of("traceparent", "00-00000000000000000000000000000001-0000000000000001-00"),
            destination,
            null,
            now,
            now,
            0,
            0,
            null,
            payload.length());
    return OutboundMessage.of(row, destination);
  }

  /**
   * Answers a batch call with neither successes nor failures, which the poller reads as "not
   * delivered": SNS speaks the query protocol (XML), SQS JSON.
   */
  private static void answerEmptyBatch(HttpExchange exchange) throws IOException {
    try (exchange) {
      String request = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      String type;
      String body;
      if (request.contains("Action=PublishBatch")) {
        type = "text/xml";
        body =
            "<PublishBatchResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">"
                + "<PublishBatchResult><Successful/><Failed/></PublishBatchResult>"
                + "<ResponseMetadata><RequestId>priming</RequestId></ResponseMetadata>"
                + "</PublishBatchResponse>";
      } else {
        type = "application/x-amz-json-1.0";
        body = "{\"Successful\":[],\"Failed\":[]}";
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", type);
      exchange.getResponseHeaders().add("x-amzn-RequestId", "priming");
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
