package dev.lambdaoutbox.poller;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.lambdaoutbox.core.PollerWakeUp;
import dev.lambdaoutbox.poller.internal.fanout.FanOut;
import dev.lambdaoutbox.poller.internal.fanout.ScheduledEvent;
import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.poller.internal.wiring.SnapStartPriming;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.JsonWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The EventBridge-scheduled Lambda: claims due outbox rows, publishes them, and returns a {@link
 * PollSummary} as JSON.
 *
 * <p>The no-arg constructor reads the configuration ({@link PollerConfig}) and builds the object
 * graph once ({@link PollerWiring}), so warm invocations and SnapStart restores reuse it; a bad
 * configuration fails initialisation naming the variable. The package-private constructors take a
 * graph built by a test.
 *
 * <p>A {@link RequestStreamHandler}, so a cold start loads no event deserialization: the poller
 * needs nothing from the scheduled event but its marks. A scheduled invocation may start further
 * ones for a backlog ({@link FanOut}); those drain and stop. An invocation woken after a commit
 * ({@link PollerWakeUp}) drains and lingers for the commits that follow; the schedule stays the
 * safety net for wake-ups that never arrive.
 */
public final class PollerHandler implements RequestStreamHandler {
  private final OutboxPoller poller;
  private final OutboxPoller fanOutPoller;

  /** Null: never starts other invocations (a graph built by a test). */
  private final FanOut fanOut;

  /**
   * Under SnapStart, primes the publish path before the snapshot; held here because CRaC keeps
   * registered hooks only weakly. Null for a graph built by a test.
   */
  @SuppressWarnings({"unused", "FieldCanBeLocal"})
  private final SnapStartPriming priming;

  /** Lambda's constructor: everything from the environment. */
  public PollerHandler() {
    this(System.getenv());
  }

  /** Everything from {@code environment}, as the no-arg constructor does from the real one. */
  PollerHandler(Map<String, String> environment) {
    this(PollerWiring.create(PollerConfig.fromEnvironment(environment)));
  }

  /** A graph built by {@link PollerWiring}, e.g. over a test's collaborators. */
  PollerHandler(PollerWiring.Graph graph) {
    this.poller = Objects.requireNonNull(graph.poller(), "poller");
    this.fanOutPoller = Objects.requireNonNull(graph.fanOutPoller(), "fanOutPoller");
    this.fanOut = graph.fanOut();
    this.priming = graph.priming();
  }

  /** Over a test's collaborators: logs and metrics go to {@code out}. */
  PollerHandler(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      PrintStream out) {
    this(PollerWiring.create(config, store, publisher, clock, random, out));
  }

  /**
   * Given pollers and fan-out, for tests.
   *
   * @param fanOutPoller runs the invocations {@code fanOut} starts
   */
  PollerHandler(OutboxPoller poller, OutboxPoller fanOutPoller, FanOut fanOut) {
    this(new PollerWiring.Graph(poller, fanOutPoller, fanOut, null));
  }

  /**
   * Lambda's entry point: the event is read only for what kind it is: a fan-out's, a wake-up, the
   * schedule's (EventBridge's {@code Scheduled Event}), or anything else.
   */
  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    byte[] event = input.readAllBytes();
    Map<String, Object> summary;
    if (FanOut.isFanOutEvent(event)) {
      summary = drainAsFanOut(context);
    } else if (PollerWakeUp.isWakeUp(event)) {
      summary = drainWoken(context, PollerWakeUp.quiet(event));
    } else if (ScheduledEvent.isScheduled(event)) {
      summary = poll(context);
    } else {
      summary = drainOnce(context);
    }
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

  /**
   * An invocation an application's {@code PollerWaker} started after its commit: drains the due
   * rows and lingers for the commits that follow (through the waker's {@code quiet} period, and
   * {@code OUTBOX_WAKE_LINGER_MS} past the last claim that found rows) unless another woken run
   * lingers as long already; starts no others. Wake-ups running at once are bounded by the
   * function's reserved concurrency, as any invocation: beyond it they wait in Lambda's event
   * queue, and one that finds nothing due when it runs stops at once.
   */
  Map<String, Object> drainWoken(Context context, Duration quiet) {
    Map<String, Object> json =
        poller
            .runWoken(context::getRemainingTimeInMillis, context.getAwsRequestId(), quiet)
            .toJson();
    json.put("woken", true);
    return json;
  }

  /**
   * An invocation whose event is neither the schedule's, a wake-up nor a fan-out's (an operator's
   * {@code {}}, a wake-up sent without its mark): drains the due rows once and stops, whatever the
   * poll interval, and never starts others, so no payload but the schedule's can fan out.
   */
  Map<String, Object> drainOnce(Context context) {
    return fanOutPoller.run(context::getRemainingTimeInMillis, context.getAwsRequestId()).toJson();
  }

  /** An invocation a fan-out started: drains the due rows and stops; starts no others. */
  Map<String, Object> drainAsFanOut(Context context) {
    Map<String, Object> json =
        fanOutPoller.run(context::getRemainingTimeInMillis, context.getAwsRequestId()).toJson();
    json.put("fanOut", true);
    return json;
  }
}
