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
    return create(config, store(config), lazyPublisher(config), Clock.systemUTC());
  }

  /**
   * The real poller and what the handler needs beside it, sharing one store and one publisher:
   *
   * @param poller a scheduled invocation's poller
   * @param fanOutPoller the poller of an invocation a fan-out started: it drains and stops,
   *     whatever the poll interval
   * @param fanOut starts further invocations when a backlog needs them
   * @param priming the SnapStart priming hook, registered with CRaC (a no-op where CRaC is absent);
   *     keep it referenced as long as the poller: CRaC holds registered resources only weakly
   */
  public record Primed(
      OutboxPoller poller, OutboxPoller fanOutPoller, FanOut fanOut, SnapStartPriming priming) {}

  /** The real poller, its fan-out and its registered SnapStart priming hook. */
  public static Primed createPrimed(PollerConfig config) {
    LazyPublisher publisher = lazyPublisher(config);
    OutboxStore store = store(config);
    Clock clock = Clock.systemUTC();
    return new Primed(
        create(config, store, publisher, clock),
        create(config.withPollInterval(Duration.ZERO), store, publisher, clock),
        FanOut.create(config, store, clock, logger(config, clock)),
        new SnapStartPriming(config, publisher).register());
  }

  private static LazyPublisher lazyPublisher(PollerConfig config) {
    return new LazyPublisher(
        () ->
            publisher(
                config, snsClient(config.publishTimeout()), sqsClient(config.publishTimeout())));
  }

  private static OutboxPoller create(
      PollerConfig config, OutboxStore store, MessagePublisher publisher, Clock clock) {
    return new OutboxPoller(
        config,
        store,
        publisher,
        clock,
        // Seeded afresh in each SnapStart sandbox. (Not RandomGenerator.getDefault(): that looks
        // its algorithm up through ServiceLoader in the jdk.random module, which a trimmed Java
        // runtime may lack; FreshRandom is built on java.base alone.)
        new FreshRandom().register(),
        logger(config, clock),
        new EmfMetrics(config.metricsNamespace(), config.serviceName(), System.out, clock));
  }

  private static JsonLogger logger(PollerConfig config, Clock clock) {
    return new JsonLogger(
        config.serviceName(), OutboxPoller.class, config.logLevel(), System.out, clock);
  }

  /**
   * The store of the configured database, over JDBC or the Data API, recording outcomes on a second
   * connection when the poller pipelines ({@link PollerConfig#pipeline()}); nothing is called yet.
   */
  public static OutboxStore store(PollerConfig config) {
    OutboxStore.Builder store =
        OutboxStore.builder(SqlExecutors.fromSettings(config.database(), config.connectionLimits()))
            .tables(config.database().tables())
            .retention(config.retention())
            .ordering(config.ordering())
            .idempotencyWindow(config.idempotencyWindow());
    if (config.pipeline()) {
      store.completionsOnSecondConnection();
    }
    return store.build();
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
