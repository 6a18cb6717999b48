package dev.lambdaoutbox.poller.internal.wiring;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.claimcheck.PayloadOffloader;
import dev.lambdaoutbox.poller.internal.claimcheck.PayloadUploader;
import dev.lambdaoutbox.poller.internal.fanout.FanOut;
import dev.lambdaoutbox.poller.internal.health.DestinationGuard;
import dev.lambdaoutbox.poller.internal.health.ProbeSchedule;
import dev.lambdaoutbox.poller.internal.invocation.ClaimRound;
import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.invocation.PipelineThreads;
import dev.lambdaoutbox.poller.internal.log.CompletionLog;
import dev.lambdaoutbox.poller.internal.log.DeadLetterReports;
import dev.lambdaoutbox.poller.internal.metrics.InvocationMetrics;
import dev.lambdaoutbox.poller.internal.outcome.Backoff;
import dev.lambdaoutbox.poller.internal.outcome.FreshRandom;
import dev.lambdaoutbox.poller.internal.outcome.OutcomePolicy;
import dev.lambdaoutbox.poller.internal.publish.BatchPublisher;
import dev.lambdaoutbox.poller.internal.publish.LazyPublisher;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.rate.SendRates;
import dev.lambdaoutbox.poller.internal.rate.Sleeper;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The poller's composition root: the one place its object graph is built from its configuration,
 * once per container ({@link #create(PollerConfig)}), so warm invocations and SnapStart restores
 * reuse it; tests and benchmarks build the same graph over collaborators of their own. The SDK
 * clients and publishing threads are built on the first publish ({@link LazyPublisher}): loading
 * the SDK is most of a cold start, and a run that finds the outbox empty does not need it.
 */
public final class PollerWiring {
  private PollerWiring() {}

  /**
   * The graph a handler runs.
   *
   * @param poller a scheduled invocation's poller
   * @param fanOutPoller the poller of an invocation a fan-out started: it drains and stops,
   *     whatever the poll interval
   * @param fanOut starts further invocations when a backlog needs them; null never does
   * @param priming the SnapStart priming hook, registered with CRaC; null in a graph built for a
   *     test. Keep it referenced as long as the poller: CRaC holds registered resources only weakly
   */
  public record Graph(
      OutboxPoller poller, OutboxPoller fanOutPoller, FanOut fanOut, SnapStartPriming priming) {}

  /**
   * The real graph for {@code config}: everything from the environment and the SDK's defaults. Lets
   * the JDK keep a connection per publish thread to each broker ({@link HttpKeepAlive}), unless
   * {@code http.maxConnections} is set.
   */
  public static Graph create(PollerConfig config) {
    HttpKeepAlive.keepAtLeast(config.publishing().publishConcurrency());
    PrintStream out = System.out;
    OutboxStore store = PollerParts.store(config);
    // Due times, leases, backoff and ages are the database's times: compared with its clock, not
    // the host's. Log lines and metrics are the host's, as Lambda's own are.
    Clock clock = store.databaseClock();
    Clock host = Clock.systemUTC();
    LazyPublisher publisher =
        new LazyPublisher(
            () ->
                publisher(
                    config,
                    AwsClients.sns(config.timing().publishTimeout()),
                    AwsClients.sqs(config.timing().publishTimeout())));
    // Seeded afresh in each SnapStart sandbox. (Not RandomGenerator.getDefault(): that looks its
    // algorithm up through ServiceLoader in the jdk.random module, which a trimmed Java runtime
    // may lack; FreshRandom is built on java.base alone.)
    FreshRandom random = new FreshRandom().register();
    JsonLogger log = PollerParts.logger(config.telemetry(), out, host);
    EmfMetrics metrics = PollerParts.metrics(config.telemetry(), out, host);
    FanOut fanOut = PollerParts.fanOut(config, store, clock, log);
    PayloadUploader uploader = PollerParts.uploader(config.timing());
    // One container's rates, whichever kind of invocation sends.
    SendRates rates = PollerParts.sendRates(config.publishing(), clock, log);
    return new Graph(
        poller(
            config,
            store,
            publisher,
            clock,
            random,
            log,
            metrics,
            uploader,
            rates,
            Sleeper.on(clock)),
        poller(
            config.withPollInterval(Duration.ZERO),
            store,
            publisher,
            clock,
            random,
            log,
            metrics,
            uploader,
            rates,
            Sleeper.on(clock)),
        fanOut,
        new SnapStartPriming(config, publisher).register());
  }

  /**
   * The graph over the given store, publisher, clock and jitter, logging to {@code out}: one poller
   * for scheduled and fan-out invocations alike, no fan-out, no priming.
   */
  public static Graph create(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      PrintStream out) {
    return create(
        config,
        store,
        publisher,
        clock,
        random,
        out,
        PollerParts.uploader(config.timing()),
        Sleeper.on(clock));
  }

  /**
   * As {@link #create(PollerConfig, OutboxStore, MessagePublisher, Clock, RandomGenerator,
   * PrintStream)}, waiting for the send rates with {@code sleeper} (a test on a hand-moved clock
   * moves it instead of sleeping).
   */
  public static Graph create(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      PrintStream out,
      Sleeper sleeper) {
    return create(
        config,
        store,
        publisher,
        clock,
        random,
        out,
        PollerParts.uploader(config.timing()),
        sleeper);
  }

  /**
   * As {@link #create(PollerConfig, OutboxStore, MessagePublisher, Clock, RandomGenerator,
   * PrintStream)}, storing claim-checked payloads with {@code uploader}.
   */
  public static Graph create(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      PrintStream out,
      PayloadUploader uploader) {
    return create(config, store, publisher, clock, random, out, uploader, Sleeper.on(clock));
  }

  private static Graph create(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      PrintStream out,
      PayloadUploader uploader,
      Sleeper sleeper) {
    JsonLogger log = PollerParts.logger(config.telemetry(), out, clock);
    OutboxPoller poller =
        poller(
            config,
            store,
            publisher,
            clock,
            random,
            log,
            PollerParts.metrics(config.telemetry(), out, clock),
            uploader,
            PollerParts.sendRates(config.publishing(), clock, log),
            sleeper);
    return new Graph(poller, poller, null, null);
  }

  /**
   * One poller and everything below it, over the given collaborators; with a claim-check bucket,
   * payloads are stored through an S3 client from the SDK's defaults, built on first use.
   */
  public static OutboxPoller poller(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      JsonLogger log,
      EmfMetrics metrics) {
    return poller(
        config,
        store,
        publisher,
        clock,
        random,
        log,
        metrics,
        PollerParts.uploader(config.timing()));
  }

  /**
   * One poller over the given collaborators, storing claim-checked payloads with {@code uploader},
   * with send rates of its own.
   */
  public static OutboxPoller poller(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      JsonLogger log,
      EmfMetrics metrics,
      PayloadUploader uploader) {
    return poller(
        config,
        store,
        publisher,
        clock,
        random,
        log,
        metrics,
        uploader,
        PollerParts.sendRates(config.publishing(), clock, log),
        Sleeper.on(clock));
  }

  /**
   * One poller over the given collaborators, sending at {@code rates} (the container's, shared by
   * its pollers) and waiting for them with {@code sleeper}.
   */
  public static OutboxPoller poller(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      JsonLogger log,
      EmfMetrics metrics,
      PayloadUploader uploader,
      SendRates rates,
      Sleeper sleeper) {
    PayloadOffloader offloader =
        config
            .claimCheck()
            .map(
                c ->
                    new PayloadOffloader(
                        c,
                        store,
                        uploader,
                        config.publishing().publishConcurrency(),
                        log,
                        config.routing().envelope()))
            .orElse(null);
    DeadLetterReports deadLetterReports =
        new DeadLetterReports(log.forClass(DeadLetterReports.class));
    ClaimRound round =
        new ClaimRound(
            config.routing(),
            new DestinationGuard(
                store.destinationHealth(),
                new ProbeSchedule(
                    config.retry().probeIntervalMin(), config.retry().probeIntervalMax()),
                log),
            publisher,
            new OutcomePolicy(
                config.retry().maxRetries(),
                new Backoff(config.retry().backoffBase(), config.retry().backoffMax(), random),
                config.retry().probeIntervalMax()),
            store,
            new CompletionLog(log, deadLetterReports),
            clock,
            log,
            offloader);
    return new OutboxPoller(
        config,
        store,
        round,
        config.publishing().pipeline() ? new PipelineThreads() : null,
        publisher,
        deadLetterReports,
        new InvocationMetrics(metrics),
        clock,
        log,
        rates,
        sleeper);
  }

  /**
   * The batch publisher with a pool of {@code OUTBOX_PUBLISH_CONCURRENCY} daemon threads; its
   * EventBridge client is built from the SDK's defaults when a bus is first published to.
   */
  public static BatchPublisher publisher(PollerConfig config, SnsClient sns, SqsClient sqs) {
    Duration timeout = config.timing().publishTimeout();
    return publisher(config, sns, sqs, () -> AwsClients.events(timeout));
  }

  /** The batch publisher, its EventBridge client from {@code events} on first use. */
  public static BatchPublisher publisher(
      PollerConfig config,
      SnsClient sns,
      SqsClient sqs,
      Supplier<? extends EventBridgeClient> events) {
    return PollerParts.publisher(config.publishing(), sns, sqs, events);
  }
}
