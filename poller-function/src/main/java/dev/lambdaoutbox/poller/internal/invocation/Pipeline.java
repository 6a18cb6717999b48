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
 * How one invocation overlaps its three steps: while the invocation's thread publishes batch N, the
 * claim thread claims batch N+1 and the record thread records batch N-1 (on the store's second
 * connection, {@link dev.lambdaoutbox.store.OutboxStore.Builder#completionsOnSecondConnection()}).
 * Each connection is used by one thread at a time. It keeps what the sequential loop guarantees:
 *
 * <ul>
 *   <li><b>Leases.</b> One batch at most is claimed ahead, after a full one and while two publish
 *       calls still fit ({@link InvocationBudget#mayClaimAhead()}); no call starts that could
 *       outlast its lease ({@link RoundGate}).
 *   <li><b>When to stop.</b> A short claim beside a recording (which may hold rows locked) is
 *       followed by one more claim.
 *   <li><b>Failures.</b> The first failed recording or claim ahead stops the invocation: a batch
 *       claimed ahead is released, the recordings under way are awaited, and the failure thrown.
 *   <li><b>Order per aggregate.</b> Claims run one at a time, and a successor is claimable only
 *       once its predecessor's recording committed, which starts after its publish call returned.
 * </ul>
 *
 * <p>{@link #sequential} does each step in turn ({@code OUTBOX_PIPELINE=false}). Not thread-safe.
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
