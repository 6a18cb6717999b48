package dev.lambdaoutbox.poller.internal.invocation;

import dev.lambdaoutbox.store.model.Claim;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * How one invocation overlaps its three steps: while the invocation's own thread routes and
 * publishes batch N, the claim thread claims batch N+1 (on the store's claim connection), and the
 * record thread records the outcomes of batch N-1 (on the store's second connection, see {@link
 * dev.lambdaoutbox.store.OutboxStore.Builder#completionsOnSecondConnection()}). Each connection is
 * used by one thread at a time: the claim connection by the claim thread while the loop runs (the
 * invocation's thread uses it again only for the retention purge and the backlog, after everything
 * here has ended), the second one by the record thread and, for destination health, by the
 * invocation's thread, taking turns.
 *
 * <p>What it keeps as the sequential loop did:
 *
 * <ul>
 *   <li><b>Leases.</b> A batch claimed ahead carries the time left when its claim started; no batch
 *       call for it starts once it could outlast that lease ({@link RoundGate}), and its rows not
 *       sent for that reason are released at once like any unsent row. A batch is claimed ahead
 *       only after a full one, and only while two whole publish calls still fit in the invocation
 *       ({@link InvocationBudget#mayClaimAhead()}): one batch at most is claimed ahead. (An ordered
 *       claim that came back short took every due head; the next one waits for this batch's
 *       recording instead, as the successors become claimable only then.)
 *   <li><b>When to stop.</b> A claim that says the due rows are taken (short; ordered, empty) ends
 *       the drain only when no recording ran beside it (a row a recording holds locked is skipped,
 *       and, ordered, a successor is claimable only once its predecessor's recording committed);
 *       otherwise the recordings are waited for and the rows claimed once more.
 *   <li><b>Failures.</b> The first failed recording stops the invocation: nothing more is claimed,
 *       a batch claimed ahead and not yet published is released (if the database lets it), the
 *       recordings under way are waited for, and the failure is thrown as a failed recording always
 *       was. The rows it did not record stay leased and are delivered again after the lease:
 *       at-least-once, never lost. A failed claim ahead is thrown the same way.
 *   <li><b>What was applied.</b> Counts and logs come from each recording's own report, after it
 *       committed; the invocation returns its summary only when every recording has ended.
 *   <li><b>Order per aggregate</b> ({@code OUTBOX_ORDERING=aggregate}). The ordered claim never
 *       takes a key whose earlier event is leased, backing off or parked; it takes the oldest
 *       unpublished event of a key only. Claims run one at a time on one thread, so batch N+1's
 *       claim begins after batch N's committed, and sees N's rows leased: no successor of a row in
 *       batch N can be in batch N+1. A successor becomes claimable only once its predecessor has
 *       left the outbox (or been released), that is once the predecessor's recording committed; and
 *       a recording is handed to the record thread only after its batch's publishing has ended. So
 *       a successor is published only after its predecessor's publish call returned, whichever
 *       claim takes it. A predecessor whose recording failed stays leased, and its successors wait
 *       behind it until it is delivered again.
 * </ul>
 *
 * <p>{@link #sequential} does each step in turn on the invocation's thread, as with {@code
 * OUTBOX_PIPELINE=false}. Not thread-safe: one invocation's thread drives it.
 */
final class Pipeline {
  /** Recordings handed over and not yet collected, at most: the one running and one waiting. */
  static final int RECORDINGS_IN_FLIGHT = 2;

  /**
   * A claim, the rows it asked for, the invocation's remaining time and the clock's time when it
   * started, and whether it may have run beside a recording.
   *
   * @param asked the claim's limit: a claim that took as many was full
   * @param besideRecording the claim ran (or may have run) while outcomes were being recorded: a
   *     row that recording held locked was skipped, so a short claim does not prove the due rows
   *     all taken (MariaDB even skips rows the recording merely deletes)
   */
  record Batch(
      Claim claim, int asked, long remainingAtClaim, Instant claimedAt, boolean besideRecording) {}

  private final PipelineThreads threads;
  private final ClaimRound round;
  private final String owner;
  private final Consumer<ClaimRound.Result> recorded;
  private final Consumer<Batch> release;
  private final Deque<Future<ClaimRound.Result>> recordings = new ArrayDeque<>();
  private Future<Batch> ahead;
  private RuntimeException failure;

  private Pipeline(
      PipelineThreads threads,
      ClaimRound round,
      String owner,
      Consumer<ClaimRound.Result> recorded,
      Consumer<Batch> release) {
    this.threads = threads;
    this.round = Objects.requireNonNull(round, "round");
    this.owner = Objects.requireNonNull(owner, "owner");
    this.recorded = Objects.requireNonNull(recorded, "recorded");
    this.release = Objects.requireNonNull(release, "release");
  }

  /**
   * A pipeline on {@code threads}.
   *
   * @param recorded takes each recording's result, on the invocation's thread
   * @param release releases the rows of a batch claimed ahead that will not be published
   */
  static Pipeline on(
      PipelineThreads threads,
      ClaimRound round,
      String owner,
      Consumer<ClaimRound.Result> recorded,
      Consumer<Batch> release) {
    return new Pipeline(
        Objects.requireNonNull(threads, "threads"), round, owner, recorded, release);
  }

  /** Each step in turn, on the invocation's thread. */
  static Pipeline sequential(ClaimRound round, String owner, Consumer<ClaimRound.Result> recorded) {
    return new Pipeline(null, round, owner, recorded, batch -> {});
  }

  /** Whether batches may be claimed ahead. */
  boolean claimsAhead() {
    return threads != null;
  }

  /** Starts claiming the next batch on the claim thread. */
  void claimAhead(Callable<Batch> claim) {
    if (!claimsAhead() || ahead != null) {
      throw new IllegalStateException("a batch is already claimed ahead, or claiming ahead is off");
    }
    ahead = threads.claims().submit(claim);
  }

  /** The batch claimed ahead, waiting for its claim to end; null when none was started. */
  Batch takeAhead() {
    Future<Batch> claim = ahead;
    ahead = null;
    return claim == null ? null : await(claim);
  }

  /**
   * Records a decided round: on the record thread, after the recordings handed over before it; in
   * turn when sequential (a failure is thrown at once, as before).
   */
  void record(ClaimRound.Decided decided) {
    if (threads == null) {
      recorded.accept(round.record(owner, decided));
      return;
    }
    while (recordings.size() >= RECORDINGS_IN_FLIGHT) {
      collect(recordings.removeFirst());
    }
    recordings.addLast(threads.records().submit(() -> round.record(owner, decided)));
    while (!recordings.isEmpty() && recordings.peekFirst().isDone()) {
      collect(recordings.removeFirst());
    }
  }

  /** Whether recordings handed over may still be running. */
  boolean recording() {
    return !recordings.isEmpty();
  }

  /** Waits for every recording handed over. */
  void awaitRecordings() {
    while (!recordings.isEmpty()) {
      collect(recordings.removeFirst());
    }
  }

  /** Throws the first failed recording's exception, if one failed. */
  void throwIfFailed() {
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * The invocation ends normally: waits for every recording, then throws the first failure, if any.
   */
  void finish() {
    awaitRecordings();
    throwIfFailed();
  }

  /**
   * The invocation fails with {@code primary}: releases a batch claimed ahead, waits for every
   * recording, and adds what else failed meanwhile to {@code primary}.
   */
  void abandon(Throwable primary) {
    try {
      Batch batch = takeAhead();
      if (batch != null) {
        release.accept(batch);
      }
    } catch (RuntimeException | Error e) {
      suppress(primary, e);
    }
    try {
      awaitRecordings();
    } catch (RuntimeException | Error e) {
      suppress(primary, e);
    }
    if (failure != null) {
      suppress(primary, failure);
    }
  }

  private void collect(Future<ClaimRound.Result> recording) {
    ClaimRound.Result result;
    try {
      result = await(recording);
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        suppress(failure, e);
      }
      return;
    }
    recorded.accept(result);
  }

  private static void suppress(Throwable primary, Throwable other) {
    if (other != primary) {
      primary.addSuppressed(other);
    }
  }

  /** The task's result; its own exception, untouched, when it failed. */
  private static <T> T await(Future<T> task) {
    try {
      return task.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while waiting for the database; the rows not recorded stay leased and are"
              + " delivered again after the lease",
          e);
    }
  }
}
