package dev.lambdaoutbox.poller.internal.wiring;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.PublishSettings;
import dev.lambdaoutbox.poller.TelemetrySettings;
import dev.lambdaoutbox.poller.TimingSettings;
import dev.lambdaoutbox.poller.internal.claimcheck.PayloadUploader;
import dev.lambdaoutbox.poller.internal.claimcheck.S3PayloadUploader;
import dev.lambdaoutbox.poller.internal.fanout.FanOut;
import dev.lambdaoutbox.poller.internal.fanout.FanOutDecision;
import dev.lambdaoutbox.poller.internal.fanout.LambdaSelfInvoker;
import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.publish.BatchPublisher;
import dev.lambdaoutbox.poller.internal.publish.EventBridgeBatchSender;
import dev.lambdaoutbox.poller.internal.publish.SnsBatchSender;
import dev.lambdaoutbox.poller.internal.publish.SqsBatchSender;
import dev.lambdaoutbox.poller.internal.rate.SendRates;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.SqlExecutors;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The pieces {@link PollerWiring} builds a poller from, each from its part of the configuration.
 */
final class PollerParts {
  private PollerParts() {}

  /**
   * A container's send rates: {@code OUTBOX_MAX_SEND_RATE} shared among {@code
   * OUTBOX_MAX_CONCURRENT_POLLERS}, lowered while a destination throttles.
   */
  static SendRates sendRates(PublishSettings publishing, Clock clock, JsonLogger log) {
    return new SendRates(
        SendRates.perPoller(publishing.maxSendRate(), publishing.maxConcurrentPollers()),
        clock,
        log);
  }

  /**
   * The store of the configured database, over JDBC or the Data API, recording outcomes on a second
   * connection when the poller pipelines ({@link PublishSettings#pipeline()}); nothing is called
   * yet.
   */
  static OutboxStore store(PollerConfig config) {
    OutboxStore.Builder store =
        OutboxStore.builder(SqlExecutors.fromSettings(config.database(), config.connectionLimits()))
            .tables(config.database().tables())
            .retention(config.storeTuning().retention())
            .ordering(config.ordering())
            .idempotencyWindow(config.storeTuning().idempotencyWindow())
            .parkingChunkSize(config.storeTuning().parkingChunkSize());
    if (config.publishing().pipeline()) {
      store.completionsOnSecondConnection();
    }
    return store.build();
  }

  /** The batch publisher, its EventBridge client from {@code events} on first use. */
  static BatchPublisher publisher(
      PublishSettings publishing,
      SnsClient sns,
      SqsClient sqs,
      Supplier<? extends EventBridgeClient> events) {
    return new BatchPublisher(
        new SnsBatchSender(sns),
        new SqsBatchSender(sqs),
        new EventBridgeBatchSender(events),
        Executors.newFixedThreadPool(publishing.publishConcurrency(), daemonThreads()));
  }

  /**
   * Starts further invocations of this function for a backlog, through a Lambda client built on the
   * first one it starts.
   */
  static FanOut fanOut(PollerConfig config, OutboxStore store, Clock clock, JsonLogger log) {
    Duration timeout = config.timing().publishTimeout();
    return new FanOut(
        config,
        store,
        new LambdaSelfInvoker(() -> AwsClients.lambda(timeout)),
        new FanOutDecision(
            config.publishing().maxConcurrentPollers(),
            config.claims().batchSize(),
            FanOutDecision.ASSUMED_EVENTS_PER_SECOND),
        clock,
        log);
  }

  /** The claim check's S3 uploader, its client built on the first upload. */
  static PayloadUploader uploader(TimingSettings timing) {
    Duration timeout = timing.publishTimeout();
    return new S3PayloadUploader(() -> AwsClients.s3(timeout));
  }

  static JsonLogger logger(TelemetrySettings telemetry, PrintStream out, Clock clock) {
    return new JsonLogger(
        telemetry.serviceName(), OutboxPoller.class, telemetry.logLevel(), out, clock);
  }

  static EmfMetrics metrics(TelemetrySettings telemetry, PrintStream out, Clock clock) {
    return new EmfMetrics(telemetry.metricsNamespace(), telemetry.serviceName(), out, clock);
  }

  static ThreadFactory daemonThreads() {
    AtomicInteger next = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, "outbox-publisher-" + next.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
