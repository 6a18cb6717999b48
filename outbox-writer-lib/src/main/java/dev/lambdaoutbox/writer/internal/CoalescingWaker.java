package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.writer.PollerWaker;
import dev.lambdaoutbox.writer.TransactionRequiredException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jdbi.v3.core.Handle;

/**
 * The {@link PollerWaker}: commits mark a wake-up as wanted; one daemon thread sends it, at once
 * when the last was sent an interval ago or more, else when the interval is over, so however many
 * commits come in one interval, at most one wake-up goes out for them. The committing threads only
 * set a flag and unpark the sender: the commit never waits for Lambda, nor fails with it.
 *
 * <p>Sending before returning (an application that is itself a Lambda function): Lambda freezes the
 * sandbox as soon as the handler has returned, and a wake-up the sender thread has not sent by then
 * waits for the sandbox's next request, or is lost with the sandbox. So {@link #afterCommit()}
 * returns only once a wake-up that started after it was answered (or failed), at most {@link
 * #ANSWER_WAIT}; commits made meanwhile on other threads share it. No interval is waited for: the
 * request waits for one {@code Invoke} at most, and the sandbox's requests bound the rate.
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
    this.sender = Objects.requireNonNull(sender, "sender");
    this.sendBeforeReturning = sendBeforeReturning;
    this.intervalNanos = interval.toNanos();
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
    long mine = asked.incrementAndGet(); // before the flag: a send that clears it covers this call
    if (!wanted.getAndSet(true)) {
      LockSupport.unpark(thread);
    }
    if (sendBeforeReturning) {
      awaitAnswer(mine);
    }
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
    long lastSent = System.nanoTime() - intervalNanos;
    while (!closed) {
      if (!wanted.get()) {
        LockSupport.park(this);
        continue;
      }
      long wait = lastSent + intervalNanos - System.nanoTime();
      if (wait > 0 && !sendBeforeReturning) {
        LockSupport.parkNanos(this, wait);
        continue;
      }
      wanted.set(false);
      long covers = asked.get(); // every call numbered so far committed before this send
      lastSent = System.nanoTime();
      send();
      synchronized (answeredUpTo) {
        answeredUpTo[0] = Math.max(answeredUpTo[0], covers);
        answeredUpTo.notifyAll();
      }
    }
  }

  private void send() {
    try {
      sender.send();
      sent.incrementAndGet();
    } catch (RuntimeException e) {
      // Not the application's failure: its commit is done, and the schedule publishes the rows.
      failed.incrementAndGet();
      failures.warn(
          "could not wake the outbox poller: "
              + e.getMessage()
              + "; the rows are published on its next scheduled run");
    }
  }
}
