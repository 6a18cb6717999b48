package dev.lambdaoutbox.poller;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.lambdaoutbox.poller.internal.FanOut;
import dev.lambdaoutbox.poller.internal.MessagePublisher;
import dev.lambdaoutbox.poller.internal.OutboxPoller;
import dev.lambdaoutbox.poller.internal.PollerWiring;
import dev.lambdaoutbox.poller.internal.SnapStartPriming;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.JsonWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
 *
 * <p>Scale-out ({@code OUTBOX_MAX_CONCURRENT_POLLERS} above 1): a scheduled invocation that finds
 * more due rows than it can publish before its timeout first starts further invocations of this
 * function ({@link FanOut}); those read the fan-out mark in their event, drain the due rows and
 * stop, and start no others.
 */
public final class PollerHandler implements RequestStreamHandler {
  private final OutboxPoller poller;
  private final OutboxPoller fanOutPoller;

  /** Null: never starts other invocations (a poller built by a test). */
  private final FanOut fanOut;

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
    this.fanOutPoller = primed.fanOutPoller();
    this.fanOut = primed.fanOut();
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
    this(poller, poller, null);
  }

  /**
   * Given pollers and fan-out, for tests.
   *
   * @param fanOutPoller runs the invocations {@code fanOut} starts
   */
  PollerHandler(OutboxPoller poller, OutboxPoller fanOutPoller, FanOut fanOut) {
    this.poller = Objects.requireNonNull(poller, "poller");
    this.fanOutPoller = Objects.requireNonNull(fanOutPoller, "fanOutPoller");
    this.fanOut = fanOut;
    this.priming = null;
  }

  /**
   * Lambda's entry point: the event (a scheduled event, or anything) is read only for the fan-out
   * mark.
   */
  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    boolean startedByFanOut = FanOut.isFanOutEvent(input.readAllBytes());
    Map<String, Object> summary = startedByFanOut ? drainAsFanOut(context) : poll(context);
    output.write(JsonWriter.write(summary).getBytes(StandardCharsets.UTF_8));
    output.flush();
  }

  /**
   * One scheduled invocation: starts further invocations if the backlog needs them, then claims,
   * publishes and records, within {@code context}'s remaining time.
   */
  public Map<String, Object> poll(Context context) {
    int started =
        fanOut == null
            ? 0
            : fanOut.start(
                context.getInvokedFunctionArn(),
                context.getRemainingTimeInMillis(),
                context.getAwsRequestId());
    PollSummary summary = poller.run(context::getRemainingTimeInMillis, context.getAwsRequestId());
    if (fanOut != null) {
      fanOut.observed(summary);
    }
    Map<String, Object> json = summary.toJson();
    if (started > 0) {
      json.put("startedPollers", started);
    }
    return json;
  }

  /** An invocation a fan-out started: drains the due rows and stops; starts no others. */
  Map<String, Object> drainAsFanOut(Context context) {
    Map<String, Object> json =
        fanOutPoller.run(context::getRemainingTimeInMillis, context.getAwsRequestId()).toJson();
    json.put("fanOut", true);
    return json;
  }
}
