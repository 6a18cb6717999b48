package dev.lambdaoutbox.poller.internal;

import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.store.Claim;
import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.MetricUnit;
import dev.lambdaoutbox.writer.Destinations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One invocation's work: claim due rows, publish them, record what became of each, and repeat.
 *
 * <ul>
 *   <li>A full batch is followed at once by another claim, so a backlog drains in one invocation.
 *       Once a claim comes back short, the poller stops, or, with a poll interval, waits that long
 *       and claims again, until the remaining time runs low.
 *   <li>Nothing is claimed, and no batch call started, that could not finish before the safety
 *       margin ({@link InvocationBudget}).
 *   <li>When the broker looks down ({@link CircuitBreaker}) the poller stops claiming; the rows of
 *       the batch that showed it are retried later, the rows not yet sent keep their lease and
 *       retry count.
 * </ul>
 *
 * <p>Each invocation writes one EMF metrics line. A row is logged at ERROR exactly once, when it is
 * dead-lettered; retries are logged at INFO.
 */
public final class OutboxPoller implements AutoCloseable {
  /** Longest lease owner the tables hold ({@code locked_by varchar(128)}). */
  private static final int MAX_OWNER_LENGTH = 128;

  /** The longest the retention purge may take at the end of an invocation. */
  private static final Duration PURGE_SLICE = Duration.ofSeconds(10);

  private final PollerConfig config;
  private final OutboxStore store;
  private final MessagePublisher publisher;
  private final DestinationRouter router;
  private final OutcomePolicy policy;
  private final Clock clock;
  private final JsonLogger log;
  private final DeadLetterReports deadLetterReports;
  private final EmfMetrics metrics;

  public OutboxPoller(
      PollerConfig config,
      OutboxStore store,
      MessagePublisher publisher,
      Clock clock,
      RandomGenerator random,
      JsonLogger log,
      EmfMetrics metrics) {
    this.config = Objects.requireNonNull(config, "config");
    this.store = Objects.requireNonNull(store, "store");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log").forClass(OutboxPoller.class);
    this.deadLetterReports = new DeadLetterReports(this.log);
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.router = new DestinationRouter(config.routes(), config.defaultDestination());
    this.policy =
        new OutcomePolicy(
            config.maxRetries(), new Backoff(config.backoffBase(), config.backoffMax(), random));
  }

  /**
   * Runs one invocation.
   *
   * @param remainingMillis the invocation's remaining time, e.g. {@code
   *     context::getRemainingTimeInMillis}
   * @param requestId names this invocation as the owner of the rows it claims
   */
  public PollSummary run(LongSupplier remainingMillis, String requestId) {
    long started = System.nanoTime();
    String owner = owner(requestId);
    InvocationBudget budget =
        new InvocationBudget(
            remainingMillis, config.safetyMargin(), config.publishTimeout(), config.lease());
    CircuitBreaker breaker = new CircuitBreaker();
    Totals totals = new Totals();
    String stoppedBecause = null;
    boolean finished = false;
    long durationMs;
    try {
      while (stoppedBecause == null) {
        if (breaker.isOpen()) {
          stoppedBecause = "broker-unreachable";
        } else if (!budget.mayClaim()) {
          stoppedBecause = "time";
          if (totals.rounds == 0) {
            log.warn(
                "too little time left to claim anything; raise the function timeout",
                Map.of(
                    "remainingMs", budget.remainingMillis(),
                    "safetyMarginMs", config.safetyMargin().toMillis(),
                    "publishTimeoutMs", config.publishTimeout().toMillis()));
          }
        } else {
          long remainingAtClaim = budget.remainingMillis();
          Claim claim = store.claim(owner, config.batchSize(), clock.instant(), config.lease());
          totals.rounds++;
          totals.unreadable(deadLetterReports.unreadable(claim));
          List<OutboxMessage> claimed = claim.messages();
          if (!claimed.isEmpty()) {
            round(owner, claimed, gate(breaker, budget, remainingAtClaim), totals);
          }
          if (claim.size() < config.batchSize() && !breaker.isOpen()) {
            stoppedBecause = idle(budget);
          }
        }
      }
      breaker
          .cause()
          .ifPresent(
              cause ->
                  log.warn(
                      "stopped early: the broker looks unreachable",
                      Map.of("errorCode", cause.code(), "reason", cause.reason())));
      purge(budget);
      finished = true;
    } finally {
      durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      emitMetrics(totals, durationMs, requestId, stoppedBecause, finished);
    }
    return totals.summary(stoppedBecause, durationMs);
  }

  /** After a short claim: stop, or wait the poll interval when there is time. */
  private String idle(InvocationBudget budget) {
    Duration interval = config.pollInterval();
    if (interval.isZero()) {
      return "drained";
    }
    if (!budget.maySleep(interval)) {
      return "time";
    }
    try {
      Thread.sleep(interval.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    return null;
  }

  private void round(String owner, List<OutboxMessage> claimed, PublishGate gate, Totals totals) {
    totals.claimed += claimed.size();
    Map<UUID, OutboxMessage> rows = new HashMap<>();
    List<Delivery> deliveries = new ArrayList<>(claimed.size());
    List<OutboundMessage> sendable = new ArrayList<>(claimed.size());
    for (OutboxMessage row : claimed) {
      rows.put(row.id(), row);
      Optional<String> destination = router.route(row);
      if (destination.isEmpty()) {
        deliveries.add(
            new Delivery.Failed(
                row.id(),
                Failure.permanent(
                    Codes.NO_DESTINATION,
                    "event type '"
                        + row.eventType()
                        + "' has no destination: the row has none, no OUTBOX_ROUTES pattern"
                        + " matches, and OUTBOX_DEFAULT_DESTINATION is not set")));
        continue;
      }
      String problem = Destinations.problemWith(destination.get());
      if (problem != null) {
        deliveries.add(
            new Delivery.Failed(
                row.id(), Failure.permanent(Codes.INVALID_DESTINATION, "destination " + problem)));
        continue;
      }
      OutboundMessage message = OutboundMessage.of(row, destination.get());
      if (message.tooLarge()) {
        deliveries.add(
            new Delivery.Failed(
                row.id(),
                Failure.permanent(
                    Codes.MESSAGE_TOO_LARGE,
                    "the message has "
                        + message.sizeBytes()
                        + " bytes (payload and attributes); SNS and SQS accept at most "
                        + OutboundMessage.MAX_BYTES)));
        continue;
      }
      sendable.add(message);
    }
    if (!sendable.isEmpty()) {
      deliveries.addAll(publisher.publish(sendable, gate));
    }

    Instant now = clock.instant();
    List<DeliveryOutcome> outcomes = new ArrayList<>(deliveries.size());
    for (Delivery delivery : deliveries) {
      policy.decide(rows.get(delivery.id()), delivery, now).ifPresent(outcomes::add);
      if (delivery instanceof Delivery.NotAttempted) {
        totals.notAttempted++;
      }
    }
    if (outcomes.isEmpty()) {
      return;
    }
    OutboxStore.CompletionCounts counts = store.complete(owner, outcomes, now);
    totals.add(counts);
    logOutcomes(rows, outcomes);
    deadLetterReports.superseded(counts.superseded());
  }

  private void logOutcomes(Map<UUID, OutboxMessage> rows, List<DeliveryOutcome> outcomes) {
    for (DeliveryOutcome outcome : outcomes) {
      OutboxMessage row = rows.get(outcome.id());
      switch (outcome) {
        case DeliveryOutcome.DeadLetter dead ->
            log.error(
                "event dead-lettered",
                fields(
                    "eventId", row.id().toString(),
                    "eventType", row.eventType(),
                    "attempts", row.retryCount() + 1,
                    "errorCode", dead.errorCode(),
                    "reason", dead.reason()),
                null);
        case DeliveryOutcome.Retry retry ->
            log.info(
                "publish failed; will retry",
                fields(
                    "eventId", row.id().toString(),
                    "retry", row.retryCount() + 1,
                    "errorCode", retry.errorCode(),
                    "reason", retry.reason(),
                    "nextAttemptAt", retry.nextAttemptAt().toString()));
        case DeliveryOutcome.Published published -> {
          if (log.enabled(JsonLogger.Level.DEBUG)) {
            log.debug("event published", Map.of("eventId", row.id().toString()));
          }
        }
      }
    }
  }

  private PublishGate gate(CircuitBreaker breaker, InvocationBudget budget, long remainingAtClaim) {
    return new PublishGate() {
      @Override
      public String refusal() {
        if (breaker.isOpen()) {
          return "not sent: the broker looks unreachable ("
              + breaker.cause().map(Failure::code).orElse("?")
              + ")";
        }
        if (!budget.mayStartCall(remainingAtClaim)) {
          return "not sent: too little time left before the timeout or the lease ends";
        }
        return null;
      }

      @Override
      public void brokerDown(Failure failure) {
        breaker.open(failure);
      }
    };
  }

  /**
   * The store's retention pass, in what is left of the invocation before the safety margin, at most
   * {@link #PURGE_SLICE}; what it does not reach, the next invocation does.
   */
  private void purge(InvocationBudget budget) {
    Duration slice =
        Duration.ofMillis(
            Math.min(
                PURGE_SLICE.toMillis(),
                budget.remainingMillis() - config.safetyMargin().toMillis()));
    OutboxStore.PurgeReport report = store.purge(clock.instant(), slice);
    if (!report.caughtUp()) {
      log.warn(
          "the retention purge did not catch up in its time slice; the next invocation goes on",
          Map.of("purged", report.purged(), "sliceMs", Math.max(0, slice.toMillis())));
    } else if (report.total() > 0) {
      log.debug("purged rows past their time", Map.of("purged", report.purged()));
    }
  }

  private void emitMetrics(
      Totals totals, long durationMs, String requestId, String stoppedBecause, boolean finished) {
    EmfMetrics.Batch line =
        metrics
            .batch()
            .count("Claimed", totals.claimed)
            .count("Published", totals.published)
            .count("Retried", totals.retried)
            .count("DeadLettered", totals.deadLettered)
            .count("Failed", totals.claimed - totals.published);
    if (finished) {
      OutboxStore.Backlog backlog = store.backlog(clock.instant());
      line.metric(
              "OldestPendingAgeSeconds",
              backlog.oldestPendingAge().toMillis() / 1000.0,
              MetricUnit.SECONDS)
          .count("DeadLetterBacklog", backlog.deadLetters());
    }
    line.metric("DurationMs", durationMs, MetricUnit.MILLISECONDS)
        .property("requestId", String.valueOf(requestId))
        .property("stoppedBecause", stoppedBecause == null ? "error" : stoppedBecause)
        .emit();
  }

  private static String owner(String requestId) {
    String owner =
        "poller:" + (requestId == null || requestId.isBlank() ? UUID.randomUUID() : requestId);
    return owner.length() > MAX_OWNER_LENGTH ? owner.substring(0, MAX_OWNER_LENGTH) : owner;
  }

  private static Map<String, Object> fields(Object... keysAndValues) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      fields.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return fields;
  }

  @Override
  public void close() {
    publisher.close();
  }

  /** Running counts of one invocation. */
  private static final class Totals {
    int claimed;
    int published;
    int retried;
    int deadLettered;
    int notAttempted;
    int leaseLost;
    int rounds;

    /** Rows a claim could not read: claimed, and dead-lettered by the claim itself. */
    void unreadable(int rows) {
      claimed += rows;
      deadLettered += rows;
    }

    void add(OutboxStore.CompletionCounts counts) {
      published += counts.published();
      retried += counts.retried();
      deadLettered += counts.deadLettered();
      leaseLost += counts.skippedLeaseLost();
    }

    PollSummary summary(String stoppedBecause, long durationMs) {
      return new PollSummary(
          claimed,
          published,
          retried,
          deadLettered,
          notAttempted,
          leaseLost,
          rounds,
          stoppedBecause,
          durationMs);
    }
  }
}
