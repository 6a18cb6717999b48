package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The poller's run loop in a process of its own, for benchmarks and local runs: the very loop
 * {@link PollerHandler} runs in Lambda (claim, publish, record, purge), around a store, a
 * publisher, a clock and telemetry the caller chooses.
 *
 * <pre>{@code
 * try (EmbeddedPoller poller =
 *     EmbeddedPoller.builder(config, store).brokers(sns, sqs).logger(log).metrics(metrics).build()) {
 *   PollSummary summary = poller.run(() -> 60_000, "run-1");
 * }
 * }</pre>
 */
public final class EmbeddedPoller implements AutoCloseable {
  private final OutboxPoller poller;

  private EmbeddedPoller(OutboxPoller poller) {
    this.poller = poller;
  }

  /**
   * The poller as Lambda builds it from {@code config}: its store, its SNS and SQS clients, logs
   * and metrics on standard output. Like Lambda's, it sets the JVM's {@code http.maxConnections} to
   * {@code OUTBOX_PUBLISH_CONCURRENCY} when that is above the JDK's 5 and the property is not set,
   * so that each publish thread keeps its connection. The JDK reads it when it first keeps a
   * connection: an application that made HTTP calls before sets it itself, at start-up.
   */
  public static EmbeddedPoller fromConfig(PollerConfig config) {
    return new EmbeddedPoller(PollerWiring.create(config).poller());
  }

  /** A poller of {@code config}'s settings over {@code store}; say where it publishes. */
  public static Builder builder(PollerConfig config, OutboxStore store) {
    return new Builder(config, store);
  }

  /**
   * Runs one invocation.
   *
   * @param remainingMillis the time the invocation has left, asked as it goes
   * @param requestId names this invocation as the owner of the rows it claims
   */
  public PollSummary run(LongSupplier remainingMillis, String requestId) {
    return poller.run(remainingMillis, requestId);
  }

  /** Stops the publishing threads; the store is the caller's to close. */
  @Override
  public void close() {
    poller.close();
  }

  /** Builds an {@link EmbeddedPoller}; not thread-safe. */
  public static final class Builder {
    private final PollerConfig config;
    private final OutboxStore store;
    private SnsClient sns;
    private SqsClient sqs;
    private boolean withoutBroker;
    private final List<PublishListener> listeners = new ArrayList<>();
    private Clock clock;
    private RandomGenerator random = new SplittableRandom();
    private JsonLogger logger;
    private EmfMetrics metrics;

    private Builder(PollerConfig config, OutboxStore store) {
      this.config = Objects.requireNonNull(config, "config");
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Publishes with the poller's own batch publisher ({@code OUTBOX_PUBLISH_CONCURRENCY} threads)
     * over these clients.
     */
    public Builder brokers(SnsClient sns, SqsClient sqs) {
      this.sns = Objects.requireNonNull(sns, "sns");
      this.sqs = Objects.requireNonNull(sqs, "sqs");
      this.withoutBroker = false;
      return this;
    }

    /**
     * Publishes nowhere: every message counts as sent the moment the poller hands it over, so a run
     * measures the poller and the database alone. Its figures are never broker figures.
     */
    public Builder withoutBroker() {
      this.withoutBroker = true;
      this.sns = null;
      this.sqs = null;
      return this;
    }

    /** Told of every publish call, after the listeners added before it. */
    public Builder listener(PublishListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Stands in for the database's clock, which decides what is due, leases, backoff and ages (a
     * test's timeline); by default the database's own ({@link OutboxStore#databaseClock()}).
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Spreads the retries' backoff; a fresh {@link SplittableRandom} by default. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    public Builder logger(JsonLogger logger) {
      this.logger = Objects.requireNonNull(logger, "logger");
      return this;
    }

    public Builder metrics(EmfMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * The poller.
     *
     * @throws IllegalStateException naming what is missing: where to publish ({@link #brokers} or
     *     {@link #withoutBroker}), the logger or the metrics
     */
    public EmbeddedPoller build() {
      if (sns == null && !withoutBroker) {
        throw new IllegalStateException(
            "brokers: not set; give the SNS and SQS clients, or choose withoutBroker()");
      }
      if (logger == null) {
        throw new IllegalStateException("logger: not set");
      }
      if (metrics == null) {
        throw new IllegalStateException("metrics: not set");
      }
      MessagePublisher publisher =
          withoutBroker ? new NoBroker() : PollerWiring.publisher(config, sns, sqs);
      if (!listeners.isEmpty()) {
        publisher = new Listened(publisher, List.copyOf(listeners));
      }
      return new EmbeddedPoller(
          PollerWiring.poller(
              config,
              store,
              publisher,
              clock != null ? clock : store.databaseClock(),
              random,
              logger,
              metrics));
    }
  }

  /** Every message sent at once, to no one. */
  private static final class NoBroker implements MessagePublisher {
    @Override
    public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
      List<Delivery> sent = new ArrayList<>(messages.size());
      for (OutboundMessage m : messages) {
        sent.add(new Delivery.Sent(m.id()));
      }
      return sent;
    }
  }

  /** Tells the listeners of each publish call around it. */
  private record Listened(MessagePublisher publisher, List<PublishListener> listeners)
      implements MessagePublisher {
    @Override
    public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
      List<UUID> ids = messages.stream().map(OutboundMessage::id).toList();
      listeners.forEach(l -> l.publishing(ids));
      long start = System.nanoTime();
      List<Delivery> deliveries = publisher.publish(messages, gate);
      long nanos = System.nanoTime() - start;
      listeners.forEach(l -> l.published(ids, nanos));
      return deliveries;
    }

    @Override
    public void close() {
      publisher.close();
    }
  }
}
