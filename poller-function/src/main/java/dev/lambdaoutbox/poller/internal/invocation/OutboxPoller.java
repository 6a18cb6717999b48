package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.poller.IdleSettings;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.PublishSettings;
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
 *   <li>A full claim is followed at once by another, growing while claims come back full ({@link
 *       ClaimSize}); with ordering, so is any claim that found rows, since publishing an
 *       aggregate's head makes its next event due. After a short claim the run stops, or with a
 *       poll interval (or lingering after a wake-up, {@link Linger}) waits and claims again.
 *   <li>Nothing is claimed, and no batch call started, that could not finish before the safety
 *       margin ({@link InvocationBudget}); once a call finds no send-rate slot in time ({@link
 *       Pacing}), the run claims no more.
 *   <li>Unless {@code OUTBOX_PIPELINE=false}, the steps overlap ({@link Pipeline}).
 *   <li>Last, the retention purge and the backlog ({@link Housekeeping}), and one EMF metrics line
 *       ({@link InvocationMetrics}).
 * </ul>
 */
public final class OutboxPoller implements AutoCloseable {
  /** Longest lease owner the tables hold ({@code locked_by varchar(128)}). */
  private static final int MAX_OWNER_LENGTH = 128;

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
  private final Housekeeping housekeeping;
  private final Idling idling;
  private final boolean ordered;
  private final SendRates sendRates;
  private final Sleeper sleeper;

  /**
   * @param round what each claim's rows go through
   * @param threads the pipeline's threads when {@link PublishSettings#pipeline()}, else null
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
    if (config.publishing().pipeline() != (threads != null)) {
      throw new IllegalArgumentException("threads: given exactly when the poller pipelines");
    }
    this.threads = threads;
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.deadLetterReports = Objects.requireNonNull(deadLetterReports, "deadLetterReports");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log").forClass(OutboxPoller.class);
    this.ordered = config.ordering() == Ordering.AGGREGATE;
    this.idling = new Idling(config.idle(), config.timing(), sleeper, clock, this.log);
    this.housekeeping =
        new Housekeeping(store, config.timing().safetyMargin(), ordered, clock, this.log);
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

  /**
   * Runs one invocation woken after an application's commit: drains the due rows, then lingers
   * ({@link Linger}) whatever the poll interval: until {@code quiet} and {@link Linger#MARGIN} past
   * its start, so that the commits its waker sends no wake-up for are published by it, and until
   * {@link IdleSettings#wakeLinger()} past the last claim that found rows; unless another woken run
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
            remainingMillis,
            config.timing().safetyMargin(),
            config.timing().publishTimeout(),
            config.timing().lease());
    Linger linger = quiet == null ? null : idling.linger(budget, quiet);
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
        backlog = housekeeping.run(budget);
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
    ClaimSize sizes = new ClaimSize(config.claims().batchSize(), config.claims().maxBatchSize());
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
                    "safetyMarginMs", config.timing().safetyMargin().toMillis(),
                    "publishTimeoutMs", config.timing().publishTimeout().toMillis()));
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
        String stopped = idling.idle(budget, linger, lease, batch.claimedAt());
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
        store.claim(owner, limit, claimedAt, config.timing().lease()),
        limit,
        remainingAtClaim,
        claimedAt,
        besideRecording);
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
