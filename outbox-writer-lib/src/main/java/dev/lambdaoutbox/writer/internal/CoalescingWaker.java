package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.writer.PollerWaker;
import dev.lambdaoutbox.writer.TransactionRequiredException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jdbi.v3.core.Handle;

/**
 * The {@link PollerWaker}: commits set a flag and unpark one daemon thread, which sends a wake-up
 * at once when the last went out an interval ago or more, else when the interval ends; the commit
 * never waits for Lambda, nor fails with it.
 *
 * <p>Sending before returning: Lambda freezes the sandbox once the handler returns, so there {@link
 * #afterCommit()} waits (at most {@link #ANSWER_WAIT}) for a wake-up that started after it; commits
 * on other threads share it, and no interval is waited for.
 *
 * <p>The quiet period: once Lambda accepted a wake-up whose send began at {@code s}, commits before
 * {@code s + quiet} send nothing. The event announces the period, and the woken run, which starts
 * after {@code s}, claims until at least its start {@code + quiet +} one second (the poller's
 * {@code Linger}, with {@code LingerLease} when another run lingers), so its last claim follows
 * every such commit. A commit at {@code s + quiet} or later sends its own wake-up; a failed wake-up
 * starts no period; so no commit is left for the schedule, nor to a frozen sandbox.
 */
public final class CoalescingWaker implements PollerWaker {
  /** How often, at most, a failing waker logs. */
  public static final Duration FAILURE_LOG_PERIOD = Duration.ofMinutes(1);

  /**
   * Longest {@link #afterCommit()} waits for its wake-up when sending before returning: the
   * sender's call timeout and a margin.
   */
  static final Duration ANSWER_WAIT = Duration.ofSeconds(3);

  private static final System.Logger LOG = System.getLogger(PollerWaker.class.getName());

  private final WakeUpSender sender;
  private final long intervalNanos;
  private final RateLimitedLog failures;
  private final AtomicBoolean wanted = new AtomicBoolean();
  private final AtomicLong requested = new AtomicLong();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final boolean sendBeforeReturning;

  /** Numbers the calls of {@link #afterCommit()}, for the ones that wait for their wake-up. */
  private final AtomicLong asked = new AtomicLong();

  /** Every call numbered up to this one has had a wake-up sent after it. Guarded by itself. */
  private final long[] answeredUpTo = {0};

  private final long quietNanos;
  private final LongSupplier nanoTime;

  /**
   * Until when (by {@link #nanoTime}) commits need no wake-up: the last accepted send's start plus
   * the quiet period. Only the sender thread writes it.
   */
  private volatile long quietUntil;

  /**
   * With a quiet period, commits that need a send ask for it under this lock, and the sender starts
   * and ends a quiet period under it: a commit made while a send is in flight is covered by it once
   * it is accepted, and one made after its quiet period never is.
   */
  private final Object gate = new Object();

  /** Whether a commit has asked for a send since the last one began. Guarded by {@link #gate}. */
  private boolean askedSinceSend;

  /** The latest time such a commit was made. Guarded by {@link #gate}. */
  private long latestAsked;

  private final Thread thread;
  private volatile boolean closed;

  /**
   * Starts the sending thread; {@link #afterCommit()} returns at once.
   *
   * @param failureLogPeriod how often, at most, a failure is logged
   */
  public CoalescingWaker(WakeUpSender sender, Duration interval, Duration failureLogPeriod) {
    this(sender, interval, failureLogPeriod, false);
  }

  /**
   * Starts the sending thread.
   *
   * @param failureLogPeriod how often, at most, a failure is logged
   * @param sendBeforeReturning whether {@link #afterCommit()} returns only once a wake-up sent
   *     after it was answered, as a Lambda function's handler needs
   */
  public CoalescingWaker(
      WakeUpSender sender,
      Duration interval,
      Duration failureLogPeriod,
      boolean sendBeforeReturning) {
    this(sender, interval, Duration.ZERO, failureLogPeriod, sendBeforeReturning, System::nanoTime);
  }

  /**
   * Starts the sending thread.
   *
   * @param quiet how long after an accepted send's start commits send nothing: the quiet period its
   *     event announces ({@link dev.lambdaoutbox.core.PollerWakeUp#event}); zero for none
   * @param failureLogPeriod how often, at most, a failure is logged
   * @param sendBeforeReturning whether {@link #afterCommit()} returns only once a wake-up sent
   *     after it was answered, as a Lambda function's handler needs
   * @param nanoTime the clock the quiet period is measured on ({@link System#nanoTime()}, or a
   *     test's)
   */
  public CoalescingWaker(
      WakeUpSender sender,
      Duration interval,
      Duration quiet,
      Duration failureLogPeriod,
      boolean sendBeforeReturning,
      LongSupplier nanoTime) {
    this.sender = Objects.requireNonNull(sender, "sender");
    this.sendBeforeReturning = sendBeforeReturning;
    this.intervalNanos = interval.toNanos();
    this.quietNanos = quiet.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.quietUntil = nanoTime.getAsLong();
    this.failures = new RateLimitedLog(LOG, failureLogPeriod);
    this.thread = new Thread(this::sendLoop, "outbox-poller-waker");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void afterCommit() {
    if (closed) {
      return;
    }
    requested.incrementAndGet();
    long mine;
    if (quietNanos == 0) {
      mine = ask();
    } else {
      long now = nanoTime.getAsLong();
      if (now - quietUntil < 0) {
        return; // the run an accepted wake-up woke claims after this commit (the class comment)
      }
      synchronized (gate) {
        if (now - quietUntil < 0) {
          return; // a send in flight when it was made was accepted meanwhile
        }
        if (!askedSinceSend || now - latestAsked > 0) {
          latestAsked = now;
        }
        askedSinceSend = true;
        mine = ask();
      }
    }
    if (sendBeforeReturning) {
      awaitAnswer(mine);
    }
  }

  /** Marks a send as wanted; returns this call's number. */
  private long ask() {
    long mine = asked.incrementAndGet(); // before the flag: a send that clears it covers this call
    if (!wanted.getAndSet(true)) {
      LockSupport.unpark(thread);
    }
    return mine;
  }

  /** Waits until a wake-up sent after call {@code mine} was answered, or failed. */
  private void awaitAnswer(long mine) {
    long deadline = System.nanoTime() + ANSWER_WAIT.toNanos();
    synchronized (answeredUpTo) {
      while (answeredUpTo[0] < mine && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return; // the sender is stuck: the commit is done, the schedule publishes the row
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(answeredUpTo, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Override
  public void afterCommit(Handle handle) {
    Objects.requireNonNull(handle, "handle");
    if (!handle.isInTransaction()) {
      throw new TransactionRequiredException("The Jdbi handle given to PollerWaker.afterCommit");
    }
    handle.afterCommit(this::afterCommit);
  }

  @Override
  public Counts counts() {
    return new Counts(requested.get(), sent.get(), failed.get());
  }

  @Override
  public void close() {
    closed = true;
    synchronized (answeredUpTo) {
      answeredUpTo.notifyAll();
    }
    LockSupport.unpark(thread);
    try {
      thread.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sender.close();
  }

  private void sendLoop() {
    long lastSent = nanoTime.getAsLong() - intervalNanos;
    while (!closed) {
      if (!wanted.get()) {
        LockSupport.park(this);
        continue;
      }
      long wait = lastSent + intervalNanos - nanoTime.getAsLong();
      if (wait > 0 && !sendBeforeReturning) {
        LockSupport.parkNanos(this, wait);
        continue;
      }
      long covers;
      synchronized (gate) {
        wanted.set(false);
        askedSinceSend = false;
        covers = asked.get(); // every call numbered so far committed before this send
      }
      lastSent = nanoTime.getAsLong();
      if (send() && quietNanos > 0) {
        synchronized (gate) {
          // From the send's start, which comes before the woken run's start.
          quietUntil = lastSent + quietNanos;
          if (askedSinceSend && latestAsked - quietUntil < 0) {
            // Made while it was in flight, within its quiet period: the woken run claims after
            // them.
            wanted.set(false);
            askedSinceSend = false;
            covers = asked.get();
          }
        }
      }
      synchronized (answeredUpTo) {
        answeredUpTo[0] = Math.max(answeredUpTo[0], covers);
        answeredUpTo.notifyAll();
      }
    }
  }

  /** Sends one wake-up; returns whether Lambda accepted it. */
  private boolean send() {
    try {
      sender.send();
      sent.incrementAndGet();
      return true;
    } catch (RuntimeException e) {
      // Not the application's failure: its commit is done, and the schedule publishes the rows.
      failed.incrementAndGet();
      failures.warn(
          "could not wake the outbox poller: "
              + e.getMessage()
              + "; the rows are published on its next scheduled run");
      return false;
    }
  }
}
