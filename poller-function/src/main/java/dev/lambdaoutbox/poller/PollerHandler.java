package dev.lambdaoutbox.poller;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.poller.internal.MessagePublisher;
import dev.lambdaoutbox.poller.internal.OutboxPoller;
import dev.lambdaoutbox.poller.internal.PollerWiring;
import dev.lambdaoutbox.poller.internal.SnapStartPriming;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The EventBridge-scheduled Lambda: claims due outbox rows, publishes them to SNS/SQS, and returns
 * a summary such as {@code {"claimed":120,"published":119,"retried":1,"deadLettered":0,...,
 * "durationMs":412}}.
 *
 * <p>Configuration ({@link PollerConfig}) and the database access are built once, in the
 * constructor, so warm invocations and SnapStart restores reuse them; the SNS/SQS clients and the
 * publishing threads on the first publish, or before a SnapStart snapshot. A bad configuration
 * fails initialisation with a message naming the variable.
 *
 * <p>A {@link RequestStreamHandler}: the poller needs nothing from the scheduled event, and reading
 * the stream itself spares a cold start the runtime's event deserialization (its own Jackson and
 * Joda-Time, about 1,000 classes).
 */
public final class PollerHandler implements RequestStreamHandler {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OutboxPoller poller;

  /**
   * Under SnapStart, primes the publish path before the snapshot; held here because CRaC keeps
   * registered hooks only weakly. Null for a poller built by a test.
   */
  @SuppressWarnings({"unused", "FieldCanBeLocal"})
  private final SnapStartPriming priming;

  /** Lambda's constructor: everything from the environment. */
  public PollerHandler() {
    this(System.getenv());
  }

  /** Everything from {@code environment}, as the no-arg constructor does from the real one. */
  PollerHandler(Map<String, String> environment) {
    this(PollerWiring.createPrimed(PollerConfig.fromEnvironment(environment)));
  }

  private PollerHandler(PollerWiring.Primed primed) {
    this.poller = primed.poller();
    this.priming = primed.priming();
  }

  /** Given collaborators, for tests: logs and metrics go to {@code out}. */
  PollerHandler(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      PrintStream out) {
    this(
        new OutboxPoller(
            config,
            store,
            publisher,
            clock,
            random,
            new JsonLogger(
                config.serviceName(), PollerHandler.class, config.logLevel(), out, clock),
            new EmfMetrics(config.metricsNamespace(), config.serviceName(), out, clock)));
  }

  PollerHandler(OutboxPoller poller) {
    this.poller = Objects.requireNonNull(poller, "poller");
    this.priming = null;
  }

  /** Lambda's entry point: the event (a scheduled event, or anything) is read and ignored. */
  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    input.transferTo(OutputStream.nullOutputStream());
    JSON.writeValue(output, poll(context));
  }

  /** One invocation: claims, publishes and records, within {@code context}'s remaining time. */
  public Map<String, Object> poll(Context context) {
    return poller.run(context::getRemainingTimeInMillis, context.getAwsRequestId()).toJson();
  }
}
