package dev.lambdaoutbox.poller.internal;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.SqlExecutors;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.SnsClientBuilder;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * Builds the poller's real collaborators from its configuration: SNS and SQS clients on the JDK's
 * URL connection (no Netty, no Apache client), the store (JDBC or Data API), the publishing
 * threads, logs and metrics on standard output. Region, credentials and endpoint ({@code
 * AWS_ENDPOINT_URL}) come from the SDK's own default chains.
 *
 * <p>The SDK clients and publishing threads are built on the first publish ({@link LazyPublisher}):
 * loading the SDK is most of a cold start, and an invocation that finds the outbox empty does not
 * need it. Under SnapStart, {@link SnapStartPriming} builds them before the snapshot.
 */
public final class PollerWiring {
  /** Opening a connection to SNS/SQS; a broker that does not answer this fast is down. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  private PollerWiring() {}

  /** The real poller. */
  public static OutboxPoller create(PollerConfig config) {
    return create(config, lazyPublisher(config));
  }

  /** The real poller and its SnapStart priming hook, registered with CRaC. */
  public record Primed(OutboxPoller poller, SnapStartPriming priming) {}

  /**
   * The real poller, with its {@link SnapStartPriming} hook registered (a no-op where CRaC is
   * absent). Keep the hook referenced as long as the poller: CRaC holds registered resources only
   * weakly.
   */
  public static Primed createPrimed(PollerConfig config) {
    LazyPublisher publisher = lazyPublisher(config);
    return new Primed(
        create(config, publisher), new SnapStartPriming(config, publisher).register());
  }

  private static LazyPublisher lazyPublisher(PollerConfig config) {
    return new LazyPublisher(
        () ->
            publisher(
                config, snsClient(config.publishTimeout()), sqsClient(config.publishTimeout())));
  }

  private static OutboxPoller create(PollerConfig config, MessagePublisher publisher) {
    Clock clock = Clock.systemUTC();
    return new OutboxPoller(
        config,
        store(config),
        publisher,
        clock,
        // Seeded afresh in each SnapStart sandbox. (Not RandomGenerator.getDefault(): that looks
        // its algorithm up through ServiceLoader in the jdk.random module, which a trimmed Java
        // runtime may lack; FreshRandom is built on java.base alone.)
        new FreshRandom().register(),
        new JsonLogger(
            config.serviceName(), OutboxPoller.class, config.logLevel(), System.out, clock),
        new EmfMetrics(config.metricsNamespace(), config.serviceName(), System.out, clock));
  }

  /** The store of the configured database, over JDBC or the Data API; nothing is called yet. */
  public static OutboxStore store(PollerConfig config) {
    return OutboxStore.builder(
            SqlExecutors.fromSettings(config.database(), config.connectionLimits()))
        .tables(config.database().tables())
        .retention(config.retention())
        .ordering(config.ordering())
        .idempotencyWindow(config.idempotencyWindow())
        .build();
  }

  /** The batch publisher with a pool of {@code OUTBOX_PUBLISH_CONCURRENCY} daemon threads. */
  public static BatchPublisher publisher(PollerConfig config, SnsClient sns, SqsClient sqs) {
    return new BatchPublisher(
        new SnsBatchSender(sns),
        new SqsBatchSender(sqs),
        Executors.newFixedThreadPool(config.publishConcurrency(), daemonThreads()));
  }

  public static SnsClient snsClient(Duration publishTimeout) {
    return snsClientBuilder(publishTimeout).build();
  }

  public static SqsClient sqsClient(Duration publishTimeout) {
    return sqsClientBuilder(publishTimeout).build();
  }

  /** The SNS client's builder: HTTP client and timeouts set; region, credentials from defaults. */
  static SnsClientBuilder snsClientBuilder(Duration publishTimeout) {
    return SnsClient.builder()
        .httpClientBuilder(httpClient(publishTimeout))
        .overrideConfiguration(o -> o.apiCallTimeout(publishTimeout));
  }

  /** The SQS client's builder: HTTP client and timeouts set; region, credentials from defaults. */
  static SqsClientBuilder sqsClientBuilder(Duration publishTimeout) {
    return SqsClient.builder()
        .httpClientBuilder(httpClient(publishTimeout))
        .overrideConfiguration(o -> o.apiCallTimeout(publishTimeout));
  }

  private static UrlConnectionHttpClient.Builder httpClient(Duration publishTimeout) {
    return UrlConnectionHttpClient.builder()
        .connectionTimeout(CONNECT_TIMEOUT)
        .socketTimeout(publishTimeout);
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger next = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, "outbox-publisher-" + next.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
