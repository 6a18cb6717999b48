package dev.lambdaoutbox.poller;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.lambdaoutbox.poller.internal.MessagePublisher;
import dev.lambdaoutbox.poller.internal.OutboxPoller;
import dev.lambdaoutbox.poller.internal.PollerWiring;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
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
 * <p>Configuration ({@link PollerConfig}), the SNS/SQS clients, the database access and the
 * publishing threads are built once, in the constructor, so warm invocations and SnapStart restores
 * reuse them. A bad configuration fails initialisation with a message naming the variable.
 */
public final class PollerHandler implements RequestHandler<ScheduledEvent, Map<String, Object>> {
  private final OutboxPoller poller;

  /** Lambda's constructor: everything from the environment. */
  public PollerHandler() {
    this(System.getenv());
  }

  /** Everything from {@code environment}, as the no-arg constructor does from the real one. */
  PollerHandler(Map<String, String> environment) {
    this(PollerWiring.create(PollerConfig.fromEnvironment(environment)));
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
  }

  @Override
  public Map<String, Object> handleRequest(ScheduledEvent event, Context context) {
    return poller.run(context::getRemainingTimeInMillis, context.getAwsRequestId()).toJson();
  }
}
