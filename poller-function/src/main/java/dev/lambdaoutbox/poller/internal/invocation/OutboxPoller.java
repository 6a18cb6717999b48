package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.log.DeadLetterReports;
import dev.lambdaoutbox.poller.internal.metrics.InvocationMetrics;
import dev.lambdaoutbox.poller.internal.metrics.InvocationTotals;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.rate.SendRates;
import dev.lambdaoutbox.poller.internal.rate.Sleeper;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.store.model.PurgeReport;
import dev.lambdaoutbox.telemetry.JsonLogger;
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

/**
 * One invocation's work: claim due rows, publish them ({@link ClaimRound}), record what became of
 * each, and repeat.
 *
 * <ul>
 *   <li>A full batch is followed at once by another claim, so a backlog drains in one invocation,
 *       in claims that grow while they come back full ({@link ClaimSize}) and fall back to {@code
 *       OUTBOX_BATCH_SIZE} after a short one. With ordering, so is any claim that found rows:
 *       publishing an aggregate's head makes its next event due, so a short claim does not mean the
 *       backlog is drained. Once a claim comes back short (with ordering: empty), the poller stops,
 *       or, with a poll interval, waits that long and claims again, until the remaining time runs
 *       low.
 *   <li>Nothing is claimed, and no batch call started, that could not finish before the safety
 *       margin ({@link InvocationBudget}); rows claimed but not sent for lack of time are released
 *       at once, their retry count untouched.
 *   <li>A destination found down is left alone across invocations and pollers ({@link
 *       dev.lambdaoutbox.poller.internal.health.DestinationGuard}): its rows wait without spending
 *       retries while one poller at a time probes it at growing intervals, and rows for other
 *       destinations keep flowing.
 *   <li>Each batch call waits for its destination's send rate ({@link SendRates}: a cap, lowered
 *       while the destination throttles); once a call finds no slot before the time runs out, the
 *       invocation claims no more and stops ({@code sendRate}).
 *   <li>A row that cannot be read is dead-lettered by the claim itself ({@link
 *       dev.lambdaoutbox.store.model.UnreadableRow}); the rows claimed with it go on.
 *   <li>Last, the store's retention pass, bounded by time ({@link #PURGE_SLICE}), and the backlog.
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
 * <p>Each invocation writes one EMF metrics line ({@link InvocationMetrics}). A row is logged at
 * ERROR exactly once, when it is really dead-lettered; retries are logged at INFO.
 */
public final class OutboxPoller implements AutoCloseable {
  /** Longest lease owner the tables hold ({@code locked_by varchar(128)}). */
  private static final int MAX_OWNER_LENGTH = 128;

  /** The longest the retention purge may take at the end of an invocation. */
  private static final Duration PURGE_SLICE = Duration.ofSeconds(10);

  private final PollerConfig config;
  private final OutboxStore store;
  private final ClaimRound round;
  private final PipelineThreads threads;
  private final MessagePublisher publisher;
  private final DeadLetterReports deadLetterReports;
  private final InvocationMetrics metrics;

  /** The database's clock ({@link DatabaseClock}), or a test's standing in for it. */
  private final Clock clock;

  private final JsonLogger log;
  private final boolean ordered;
  private final SendRates sendRates;
  private final Sleeper sleeper;

  /**
   * @param round what each claim's rows go through
   * @param threads the pipeline's threads when {@link PollerConfig#pipeline()}, else null
   * @param publisher the publisher {@code round} sends with, closed with this poller
   * @param sendRates the container's send rates, kept from one invocation to the next
   * @param sleeper waits for them
   */
  public OutboxPoller(
      PollerConfig config,
      OutboxStore store,
      ClaimRound round,
      PipelineThreads threads,
      MessagePublisher publisher,
      DeadLetterReports deadLetterReports,
      InvocationMetrics metrics,
      Clock clock,
      JsonLogger log,
      SendRates sendRates,
      Sleeper sleeper) {
    this.config = Objects.requireNonNull(config, "config");
    this.store = Objects.requireNonNull(store, "store");
    this.round = Objects.requireNonNull(round, "round");
    if (config.pipeline() != (threads != null)) {
      throw new IllegalArgumentException("threads: given exactly when the poller pipelines");
    }
    this.threads = threads;
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.deadLetterReports = Objects.requireNonNull(deadLetterReports, "deadLetterReports");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log").forClass(OutboxPoller.class);
    this.ordered = config.ordering() == Ordering.AGGREGATE;
    this.sendRates = Objects.requireNonNull(sendRates, "sendRates");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  /**
   * Runs one invocation.
   *
   * @param remainingMillis the invocation's remaining time, e.g. {@code
   *     context::getRemainingTimeInMillis}
   * @param requestId names this invocation as the owner of the rows it claims
   */
  public PollSummary run(LongSupplier remainingMillis, String requestId) {
    return run(remainingMillis, requestId, null);
  }

  /** The longest quiet period a wake-up may ask a run to cover. */
  static final Duration MAX_QUIET = Duration.ofSeconds(60);

  /**
   * Runs one invocation woken after an application's commit: drains the due rows, then lingers
   * ({@link Linger}) whatever the poll interval: until {@code quiet} and {@link Linger#MARGIN} past
   * its start, so that the commits its waker sends no wake-up for are published by it, and until
   * {@link PollerConfig#wakeLinger()} past the last claim that found rows; unless another woken run
   * lingers as long already ({@link LingerLease}). A woken run without a quiet period whose claim
   * found nothing (another run took the rows it was woken for) stops after that one indexed read:
   * no retention purge, no backlog query, which the scheduled runs and the woken runs that
   * published make. However many wake-ups an application sends, those beyond the rows cost the
   * database one read each (and the lease's one update, with a quiet period).
   *
   * @param quiet the quiet period the wake-up announced ({@link
   *     dev.lambdaoutbox.core.PollerWakeUp#quiet}); zero when none
   */
  public PollSummary runWoken(LongSupplier remainingMillis, String requestId, Duration quiet) {
    return run(remainingMillis, requestId, quiet);
  }

  private PollSummary run(LongSupplier remainingMillis, String requestId, Duration quiet) {
    long started = System.nanoTime();
    String owner = owner(requestId);
    InvocationBudget budget =
        new InvocationBudget(
            remainingMillis, config.safetyMargin(), config.publishTimeout(), config.lease());
    Linger linger = quiet == null ? null : linger(budget, quiet);
    InvocationTotals totals = new InvocationTotals();
    Pacing pacing = new Pacing(sendRates, sleeper, clock);
    Pipeline pipeline =
        threads == null
            ? Pipeline.sequential(
                round, owner, r -> totals.add(r.report(), r.heldBack(), r.publishLatencyMs()))
            : Pipeline.on(
                threads,
                round,
                owner,
                r -> totals.add(r.report(), r.heldBack(), r.publishLatencyMs()),
                batch -> release(owner, batch, totals));
    LingerLease lease = linger == null ? null : new LingerLease(store, owner, clock, log);
    String stoppedBecause = null;
    Backlog backlog = null;
    long durationMs;
    try {
      String stopped;
      try {
        stopped = drain(owner, budget, pacing, totals, pipeline, linger, lease);
      } catch (RuntimeException | Error e) {
        pipeline.abandon(e);
        throw e;
      } finally {
        if (lease != null) {
          lease.release(); // before the purge: the next woken run may linger at once
        }
      }
      pipeline.finish();
      stoppedBecause = stopped;
      if (linger == null || !linger.foundNothing()) {
        purge(budget);
        backlog = backlog();
      }
    } finally {
      durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      totals.paced(pacing.throttled(), pacing.waitedMillis());
      metrics.emit(totals, backlog, durationMs, requestId, stoppedBecause);
    }
    return totals.summary(stoppedBecause, durationMs);
  }

  /**
   * Claims, publishes and records until a claim comes back short (and, with a poll interval, the
   * time runs low), too little time is left, or a destination's send rate left a call no slot
   * before it; says why it stopped.
   */
  private String drain(
      String owner,
      InvocationBudget budget,
      Pacing pacing,
      InvocationTotals totals,
      Pipeline pipeline,
      Linger linger,
      LingerLease lease) {
    ClaimSize sizes = new ClaimSize(config.batchSize(), config.maxBatchSize());
    int ask = sizes.first();
    double rowsPerSecond = Double.NaN; // the last round's publishing pace
    while (true) {
      pipeline.throwIfFailed();
      Pipeline.Batch batch = pipeline.takeAhead();
      if (batch == null) {
        if (pacing.ranOut()) {
          // The rows a claim would take are those just left unsent, or rows behind them.
          return "sendRate";
        }
        if (!budget.mayClaim()) {
          if (totals.rounds() == 0) {
            log.warn(
                "too little time left to claim anything; raise the function timeout",
                Map.of(
                    "remainingMs", budget.remainingMillis(),
                    "safetyMarginMs", config.safetyMargin().toMillis(),
                    "publishTimeoutMs", config.publishTimeout().toMillis()));
          }
          return "time";
        }
        batch = claim(owner, budget, ask, pipeline.recording());
      }
      totals.countRound();
      totals.unreadable(deadLetterReports.unreadable(batch.claim()));
      // Another claim may find rows: the batch was full (in rows, or in bytes: it stopped at its
      // result budget), or, ordered, the claim found any (it takes one event per aggregate; their
      // successors are due once these are recorded).
      boolean full = batch.claim().size() >= batch.asked() || batch.claim().stoppedAtBudget();
      boolean more = full || (ordered && !batch.claim().isEmpty());
      ask =
          sizes.withinPace(
              sizes.next(batch.asked(), batch.claim().size(), batch.claim().stoppedAtBudget()),
              rowsPerSecond,
              budget.waitAllowanceMillis(budget.remainingMillis()));
      if (full && pipeline.claimsAhead() && budget.mayClaimAhead() && !pacing.ranOut()) {
        int ahead = ask;
        pipeline.claimAhead(() -> claim(owner, budget, ahead, true));
      }
      List<OutboxMessage> claimed = batch.claim().messages();
      if (!claimed.isEmpty()) {
        totals.countClaimed(claimed.size());
        // On the poller's clock, as the send rates wait and the remaining time runs down.
        Instant publishing = clock.instant();
        pipeline.record(
            round.publish(claimed, new RoundGate(budget, batch.remainingAtClaim(), pacing)));
        long tookNanos = Duration.between(publishing, clock.instant()).toNanos();
        rowsPerSecond = claimed.size() * 1e9 / Math.max(1, tookNanos);
      }
      if (linger != null) {
        // After the publish: a slow broker call does not eat the time left for followers.
        linger.found(claimed.size());
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
        String stopped = idle(budget, linger, lease, batch.claimedAt());
        if (stopped != null) {
          return stopped;
        }
      }
    }
  }

  private Pipeline.Batch claim(
      String owner, InvocationBudget budget, int limit, boolean besideRecording) {
    // Before the first claim of a run (its first statement), and again in a run that polls for
    // minutes: in the drain, so a database that cannot be reached fails it as a claim would.
    DatabaseClock.sync(clock);
    long remainingAtClaim = budget.remainingMillis();
    Instant claimedAt = clock.instant();
    return new Pipeline.Batch(
        store.claim(owner, limit, claimedAt, config.lease()),
        limit,
        remainingAtClaim,
        claimedAt,
        besideRecording);
  }

  /**
   * A woken run's linger, its promise bounded by the last moment the run may claim; says so when
   * that cuts the wake-up's quiet period short.
   */
  private Linger linger(InvocationBudget budget, Duration quiet) {
    Duration covered = quiet.compareTo(MAX_QUIET) > 0 ? MAX_QUIET : quiet;
    Instant deadline = clock.instant().plus(budget.claimingTime());
    Linger linger = new Linger(clock, config.wakeLinger(), covered, deadline);
    if (linger.cutShort()) {
      log.warn(
          "the wake-up's quiet period runs past the time this run may claim; commits at its end"
              + " wait for the next wake-up or the schedule: raise the function timeout",
          Map.of(
              "quietMs", quiet.toMillis(),
              "remainingMs", budget.remainingMillis(),
              "safetyMarginMs", config.safetyMargin().toMillis(),
              "publishTimeoutMs", config.publishTimeout().toMillis()));
    }
    return linger;
  }

  /**
   * Releases the rows of a batch claimed ahead that the invocation will not publish (it failed
   * meanwhile): due again at once, retry count untouched. The claim's unreadable rows were moved by
   * the claim itself.
   */
  private void release(String owner, Pipeline.Batch batch, InvocationTotals totals) {
    totals.countRound();
    totals.unreadable(deadLetterReports.unreadable(batch.claim()));
    List<OutboxMessage> claimed = batch.claim().messages();
    totals.countClaimed(claimed.size());
    if (claimed.isEmpty()) {
      return;
    }
    List<DeliveryOutcome> releases = new ArrayList<>(claimed.size());
    claimed.forEach(m -> releases.add(new DeliveryOutcome.Release(m.id())));
    CompletionReport report = store.complete(owner, releases, clock.instant());
    totals.add(report, 0, new long[0]);
    log.info(
        "released rows claimed ahead: the invocation stops on a failure",
        Map.of("released", report.completions().stream().filter(Completion::applied).count()));
  }

  /**
   * After a short claim: stop, or wait the poll interval (lingering: {@link Linger#POLL_INTERVAL},
   * if no other woken run lingers) when there is time.
   */
  private String idle(
      InvocationBudget budget, Linger linger, LingerLease lease, Instant claimedAt) {
    Duration interval;
    if (linger != null) {
      String stop = linger.stop(claimedAt);
      if (stop != null) {
        return stop;
      }
      if (!lease.hold(linger.promise(), linger.covers())) {
        return "anotherLingers";
      }
      interval = Linger.POLL_INTERVAL;
    } else {
      interval = config.pollInterval();
      if (interval.isZero()) {
        return "drained";
      }
    }
    if (!budget.maySleep(interval)) {
      return "time";
    }
    try {
      if (linger != null) {
        sleeper.sleepUntil(clock.instant().plus(interval)); // a test's clock moves instead
      } else {
        Thread.sleep(interval.toMillis());
      }
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
    Duration slice = slice(budget);
    PurgeReport report = store.purge(clock.instant(), slice);
    if (!report.caughtUp()) {
      log.warn(
          "the retention purge did not catch up in its time slice; the next invocation goes on",
          Map.of("purged", report.purged(), "sliceMs", Math.max(0, slice.toMillis())));
    } else if (report.total() > 0) {
      log.debug("purged rows past their time", Map.of("purged", report.purged()));
    }
  }

  /** What is left of the invocation before the safety margin, at most {@link #PURGE_SLICE}. */
  private Duration slice(InvocationBudget budget) {
    return Duration.ofMillis(
        Math.min(
            PURGE_SLICE.toMillis(), budget.remainingMillis() - config.safetyMargin().toMillis()));
  }

  /** The gauges for the metrics line; forgets destination health rows nobody probes any more. */
  private Backlog backlog() {
    Instant now = clock.instant();
    Backlog backlog = store.backlog(now);
    if (backlog.staleDestinations() > 0) {
      int forgotten = store.destinationHealth().forgetStale(now);
      log.info(
          "forgot destinations marked down that no pending row has been routed to for a while",
          Map.of("forgotten", forgotten));
    }
    if (!ordered && backlog.parkedKeys() > 0) {
      log.warn(
          "aggregates are parked behind dead letters, and OUTBOX_ORDERING is none: their events"
              + " are published without order; replay or discard each dead letter to unpark",
          Map.of("parkedKeys", backlog.parkedKeys(), "parkedEvents", backlog.parkedEvents()));
    }
    return backlog;
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
}
