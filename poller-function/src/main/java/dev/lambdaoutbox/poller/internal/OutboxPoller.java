package dev.lambdaoutbox.poller.internal;

import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.store.Completion;
import dev.lambdaoutbox.store.CompletionReport;
import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.Ordering;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.MetricUnit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One invocation's work: claim due rows, publish them ({@link ClaimRound}), record what became of
 * each, and repeat.
 *
 * <ul>
 *   <li>A full batch is followed at once by another claim, so a backlog drains in one invocation.
 *       With ordering, so is any claim that found rows: publishing an aggregate's head makes its
 *       next event due, so a short claim does not mean the backlog is drained. Once a claim comes
 *       back short (with ordering: empty), the poller stops, or, with a poll interval, waits that
 *       long and claims again, until the remaining time runs low.
 *   <li>Nothing is claimed, and no batch call started, that could not finish before the safety
 *       margin ({@link InvocationBudget}); rows claimed but not sent for lack of time are released
 *       at once, their retry count untouched.
 *   <li>A destination found down is left alone across invocations and pollers ({@link
 *       DestinationGuard}): its rows wait without spending retries while one poller at a time
 *       probes it at growing intervals, and rows for other destinations keep flowing.
 *   <li>A row that cannot be read is dead-lettered by the claim itself ({@link
 *       dev.lambdaoutbox.store.UnreadableRow}); the rows claimed with it go on.
 *   <li>Last, the store's retention pass, bounded by time ({@link #PURGE_SLICE}).
 *   <li>Unless {@code OUTBOX_PIPELINE=false}, the steps overlap ({@link Pipeline}): the next batch
 *       is claimed while one is published, and outcomes are recorded on a second connection
 *       meanwhile, with the same leases, failure paths and order per aggregate.
 * </ul>
 *
 * <p>With {@code OUTBOX_ORDERING=aggregate} the store claims at most one event per aggregate, the
 * oldest unpublished one, so nothing in a round (parallel batches, a split batch, a probe, a
 * deferral) can put two events of one aggregate in flight; a dead-lettered head parks its
 * aggregate, an unreadable one too (in the claim's transaction).
 *
 * <p>Each invocation writes one EMF metrics line. A row is logged at ERROR exactly once, when it is
 * really dead-lettered; retries are logged at INFO.
 */
public final class OutboxPoller implements AutoCloseable {
  /** Longest lease owner the tables hold ({@code locked_by varchar(128)}). */
  private static final int MAX_OWNER_LENGTH = 128;

  /** The longest the retention purge may take at the end of an invocation. */
  private static final Duration PURGE_SLICE = Duration.ofSeconds(10);

  private final PollerConfig config;
  private final OutboxStore store;
  private final MessagePublisher publisher;
  private final ClaimRound round;
  private final Clock clock;
  private final JsonLogger log;
  private final DeadLetterReports deadLetterReports;
  private final EmfMetrics metrics;
  private final PipelineThreads threads;
  private final boolean ordered;

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
    this.ordered = config.ordering() == Ordering.AGGREGATE;
    this.round =
        new ClaimRound(
            new DestinationRouter(config.routes(), config.defaultDestination()),
            new DestinationGuard(
                store.destinationHealth(),
                new ProbeSchedule(config.probeIntervalMin(), config.probeIntervalMax()),
                log),
            publisher,
            new OutcomePolicy(
                config.maxRetries(),
                new Backoff(config.backoffBase(), config.backoffMax(), random)),
            store,
            clock,
            log);
    this.threads = config.pipeline() ? new PipelineThreads() : null;
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
    Totals totals = new Totals();
    Pipeline pipeline =
        threads == null
            ? Pipeline.sequential(round, owner, totals::add)
            : Pipeline.on(
                threads, round, owner, totals::add, batch -> release(owner, batch, totals));
    String stoppedBecause = null;
    OutboxStore.Backlog backlog = null;
    long durationMs;
    try {
      String stopped;
      try {
        stopped = drain(owner, budget, totals, pipeline);
      } catch (RuntimeException | Error e) {
        pipeline.abandon(e);
        throw e;
      }
      pipeline.finish();
      stoppedBecause = stopped;
      purge(budget);
      backlog = backlog();
    } finally {
      durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      emitMetrics(totals, backlog, durationMs, requestId, stoppedBecause);
    }
    return totals.summary(stoppedBecause, durationMs);
  }

  /**
   * Claims, publishes and records until a claim comes back short (and, with a poll interval, the
   * time runs low) or too little time is left; says why it stopped.
   */
  private String drain(String owner, InvocationBudget budget, Totals totals, Pipeline pipeline) {
    while (true) {
      pipeline.throwIfFailed();
      Pipeline.Batch batch = pipeline.takeAhead();
      if (batch == null) {
        if (!budget.mayClaim()) {
          if (totals.rounds == 0) {
            log.warn(
                "too little time left to claim anything; raise the function timeout",
                Map.of(
                    "remainingMs", budget.remainingMillis(),
                    "safetyMarginMs", config.safetyMargin().toMillis(),
                    "publishTimeoutMs", config.publishTimeout().toMillis()));
          }
          return "time";
        }
        batch = claim(owner, budget, pipeline.recording());
      }
      totals.rounds++;
      totals.unreadable(deadLetterReports.unreadable(batch.claim()));
      // Another claim may find rows: the batch was full, or, ordered, the claim found any (it
      // takes one event per aggregate; their successors are due once these are recorded).
      boolean full = batch.claim().size() >= config.batchSize();
      boolean more = full || (ordered && !batch.claim().isEmpty());
      if (full && pipeline.claimsAhead() && budget.mayClaimAhead()) {
        pipeline.claimAhead(() -> claim(owner, budget, true));
      }
      List<OutboxMessage> claimed = batch.claim().messages();
      if (!claimed.isEmpty()) {
        totals.claimed += claimed.size();
        pipeline.record(round.publish(claimed, new RoundGate(budget, batch.remainingAtClaim())));
      }
      if (more && !full) {
        // Ordered, and every due head taken: their successors are claimable once these are
        // recorded, so a claim ahead would come back empty; the next claim waits for them.
        pipeline.awaitRecordings();
        pipeline.throwIfFailed();
      } else if (!more) {
        // Before idling: what the recordings met counts now, not after the sleep.
        pipeline.awaitRecordings();
        pipeline.throwIfFailed();
        if (batch.besideRecording()) {
          continue; // rows the recordings held locked were skipped: claim again before stopping
        }
        String stopped = idle(budget);
        if (stopped != null) {
          return stopped;
        }
      }
    }
  }

  private Pipeline.Batch claim(String owner, InvocationBudget budget, boolean besideRecording) {
    long remainingAtClaim = budget.remainingMillis();
    return new Pipeline.Batch(
        store.claim(owner, config.batchSize(), clock.instant(), config.lease()),
        remainingAtClaim,
        besideRecording);
  }

  /**
   * Releases the rows of a batch claimed ahead that the invocation will not publish (it failed
   * meanwhile): due again at once, retry count untouched. The claim's unreadable rows were moved by
   * the claim itself.
   */
  private void release(String owner, Pipeline.Batch batch, Totals totals) {
    totals.rounds++;
    totals.unreadable(deadLetterReports.unreadable(batch.claim()));
    List<OutboxMessage> claimed = batch.claim().messages();
    totals.claimed += claimed.size();
    if (claimed.isEmpty()) {
      return;
    }
    List<DeliveryOutcome> releases = new ArrayList<>(claimed.size());
    claimed.forEach(m -> releases.add(new DeliveryOutcome.Release(m.id())));
    CompletionReport report = store.complete(owner, releases, clock.instant());
    totals.add(new ClaimRound.Result(report, 0));
    log.info(
        "released rows claimed ahead: the invocation stops on a failure",
        Map.of("released", report.completions().stream().filter(Completion::applied).count()));
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

  /** The gauges for the metrics line; forgets destination health rows nobody probes any more. */
  private OutboxStore.Backlog backlog() {
    Instant now = clock.instant();
    OutboxStore.Backlog backlog = store.backlog(now);
    if (backlog.staleDestinations() > 0) {
      int forgotten = store.destinationHealth().forgetStale(now);
      log.info(
          "forgot destinations marked down that no pending row has been routed to for a while",
          Map.of("forgotten", forgotten));
    }
    if (!ordered && backlog.parkedKeys() > 0) {
      log.warn(
          "aggregates are parked behind dead letters, and OUTBOX_ORDERING is none: their parked"
              + " events wait until each dead letter is replayed or discarded",
          Map.of("parkedKeys", backlog.parkedKeys(), "parkedEvents", backlog.parkedEvents()));
    }
    return backlog;
  }

  private void emitMetrics(
      Totals totals,
      OutboxStore.Backlog backlog,
      long durationMs,
      String requestId,
      String stoppedBecause) {
    EmfMetrics.Batch line =
        metrics
            .batch()
            .count("Claimed", totals.claimed)
            .count("Published", totals.published)
            .count("Retried", totals.retried)
            .count("DeadLettered", totals.deadLettered)
            .count("Deferred", totals.deferred)
            .count("Released", totals.released)
            .count("LeaseLost", totals.leaseLost);
    if (backlog != null) {
      line.metric(
              "OldestUnpublishedAgeSeconds",
              backlog.oldestUnpublishedAge().toMillis() / 1000.0,
              MetricUnit.SECONDS)
          .count(
              "DeadLetterBacklog",
              Math.min(backlog.deadLetters(), OutboxStore.DEAD_LETTER_COUNT_CAP))
          .count("DestinationsDown", backlog.destinationsDown())
          .count("DestinationsMisconfigured", backlog.destinationsMisconfigured())
          .count(
              "WaitingOnMisconfigured",
              Math.min(backlog.waitingOnMisconfigured(), OutboxStore.WAITING_COUNT_CAP))
          .property("deadLetterBacklogCapped", backlog.deadLettersCapped())
          .count("ParkedKeys", Math.min(backlog.parkedKeys(), OutboxStore.PARKED_COUNT_CAP))
          .count("ParkedEvents", Math.min(backlog.parkedEvents(), OutboxStore.PARKED_COUNT_CAP))
          .property("parkedCapped", backlog.parkedCapped());
    }
    line.metric("DurationMs", durationMs, MetricUnit.MILLISECONDS)
        .property("heldBack", totals.heldBack)
        .property("requestId", String.valueOf(requestId))
        .property("stoppedBecause", stoppedBecause == null ? "error" : stoppedBecause)
        .emit();
  }

  private static String owner(String requestId) {
    String owner =
        "poller:" + (requestId == null || requestId.isBlank() ? UUID.randomUUID() : requestId);
    return owner.length() > MAX_OWNER_LENGTH ? owner.substring(0, MAX_OWNER_LENGTH) : owner;
  }

  @Override
  public void close() {
    if (threads != null) {
      threads.close();
    }
    publisher.close();
  }

  /** Running counts of one invocation. */
  private static final class Totals {
    int claimed;
    int published;
    int retried;
    int deadLettered;
    int deferred;
    int released;
    int heldBack;
    int leaseLost;
    int rounds;

    /** Rows a claim could not read: claimed, and dead-lettered by the claim itself. */
    void unreadable(int rows) {
      claimed += rows;
      deadLettered += rows;
    }

    void add(ClaimRound.Result result) {
      for (Completion c : result.report().completions()) {
        switch (c.result()) {
          case PUBLISHED -> published++;
          case RETRIED -> retried++;
          case DEAD_LETTERED -> deadLettered++;
          case DEFERRED -> {
            if (c.outcome() instanceof DeliveryOutcome.Release) {
              released++;
            } else {
              deferred++;
            }
          }
          case LEASE_LOST -> leaseLost++;
        }
      }
      heldBack += result.heldBack();
    }

    PollSummary summary(String stoppedBecause, long durationMs) {
      return new PollSummary(
          claimed,
          published,
          retried,
          deadLettered,
          deferred,
          released,
          heldBack,
          leaseLost,
          rounds,
          stoppedBecause,
          durationMs);
    }
  }
}
