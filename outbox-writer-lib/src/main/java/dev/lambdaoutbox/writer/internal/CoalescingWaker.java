package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.writer.PollerWaker;
import dev.lambdaoutbox.writer.TransactionRequiredException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jdbi.v3.core.Handle;

/**
 * The {@link PollerWaker}: commits mark a wake-up as wanted; one daemon thread sends it, at once
 * when the last was sent an interval ago or more, else when the interval is over, so however many
 * commits come in one interval, at most one wake-up goes out for them. The committing threads only
 * set a flag and unpark the sender: the commit never waits for Lambda, nor fails with it.
 */
public final class CoalescingWaker implements PollerWaker {
  /** How often, at most, a failing waker logs. */
  public static final Duration FAILURE_LOG_PERIOD = Duration.ofMinutes(1);

  private static final System.Logger LOG = System.getLogger(PollerWaker.class.getName());

  private final WakeUpSender sender;
  private final long intervalNanos;
  private final RateLimitedLog failures;
  private final AtomicBoolean wanted = new AtomicBoolean();
  private final AtomicLong requested = new AtomicLong();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Thread thread;
  private volatile boolean closed;

  /**
   * Starts the sending thread.
   *
   * @param failureLogPeriod how often, at most, a failure is logged
   */
  public CoalescingWaker(WakeUpSender sender, Duration interval, Duration failureLogPeriod) {
    this.sender = Objects.requireNonNull(sender, "sender");
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
    if (!wanted.getAndSet(true)) {
      LockSupport.unpark(thread);
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
      if (wait > 0) {
        LockSupport.parkNanos(this, wait);
        continue;
      }
      wanted.set(false);
      lastSent = System.nanoTime();
      send();
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
