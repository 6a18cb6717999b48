package dev.lambdaoutbox.poller.internal.fanout;

import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Scale-out on Lambda. At the start of a scheduled invocation, when more rows are due than one
 * invocation can publish before its timeout, it starts further invocations of the same function
 * (asynchronous {@code Invoke}; {@link FanOutDecision} says how many), each with an event that
 * marks it as started this way ({@link #isFanOutEvent}), so that it drains and stops and never
 * starts others. Every invocation claims with {@code SKIP LOCKED} and leases as always, so they
 * share the backlog without any further coordination.
 *
 * <p>Lambda bounds them as well: beyond the function's reserved concurrency an invocation is
 * throttled, retried by Lambda's event queue, and dropped after the template's {@code
 * MaximumEventAgeInSeconds}; its rows wait for the next run. A failure to count the due rows or to
 * start an invocation is logged, and this invocation drains alone: nothing depends on the help
 * arriving.
 */
public final class FanOut {
  /** The field that marks an invocation's event as a fan-out one. */
  static final String MARKER = "outboxFanOut";

  private final PollerConfig config;
  private final OutboxStore store;
  private final SelfInvoker invoker;
  private final FanOutDecision decision;
  private final Clock clock;
  private final JsonLogger log;

  public FanOut(
      PollerConfig config,
      OutboxStore store,
      SelfInvoker invoker,
      FanOutDecision decision,
      Clock clock,
      JsonLogger log) {
    this.config = Objects.requireNonNull(config, "config");
    this.store = Objects.requireNonNull(store, "store");
    this.invoker = Objects.requireNonNull(invoker, "invoker");
    this.decision = Objects.requireNonNull(decision, "decision");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log").forClass(FanOut.class);
  }

  /**
   * Whether an invocation's event is one a fan-out started. (A plain look for the marker: the
   * events a schedule sends never hold it, and it spares a cold start a JSON parser.)
   */
  public static boolean isFanOutEvent(byte[] event) {
    return new String(event, StandardCharsets.UTF_8).contains("\"" + MARKER + "\"");
  }

  /** The event of an invocation started by {@code requestId}. */
  public static String payload(String requestId) {
    String by = requestId == null ? "" : requestId.replaceAll("[^A-Za-z0-9._:-]", "");
    return "{\"" + MARKER + "\":{\"startedBy\":\"" + by + "\"}}";
  }

  /**
   * Starts as many further invocations of {@code functionArn} as the due rows need; returns how
   * many Lambda accepted.
   *
   * @param remainingMillis this invocation's remaining time
   */
  public int start(String functionArn, long remainingMillis, String requestId) {
    if (!decision.enabled()) {
      return 0;
    }
    long usable =
        remainingMillis
            - config.timing().safetyMargin().toMillis()
            - config.timing().publishTimeout().toMillis();
    int due;
    try {
      due = store.countDue(clock.instant(), decision.countLimit(usable));
    } catch (RuntimeException e) {
      log.warn(
          "could not count the due rows; this invocation drains alone",
          Map.of("reason", String.valueOf(e.getMessage())));
      return 0;
    }
    int wanted = decision.extraInvocations(due, usable);
    if (wanted == 0) {
      return 0;
    }
    if (functionArn == null || functionArn.isBlank()) {
      log.warn("no function ARN to invoke; this invocation drains alone", Map.of("due", due));
      return 0;
    }
    int started = 0;
    String payload = payload(requestId);
    for (int i = 0; i < wanted; i++) {
      try {
        invoker.invokeAsync(functionArn, payload);
        started++;
      } catch (RuntimeException e) {
        log.warn(
            "could not start another invocation; the ones running drain the backlog",
            Map.of("functionArn", functionArn, "reason", String.valueOf(e.getMessage())));
        break;
      }
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("dueRows", due);
    fields.put("eventsPerSecondAssumed", Math.round(decision.eventsPerSecond()));
    fields.put("usableMs", usable);
    fields.put("started", started);
    fields.put("maxConcurrentPollers", config.publishing().maxConcurrentPollers());
    log.info("backlog beyond one invocation; started more", fields);
    return started;
  }

  /** Learns the rate of one invocation from a scheduled invocation's summary. */
  public void observed(PollSummary summary) {
    decision.observed(summary);
  }
}
