package dev.lambdaoutbox.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;

/**
 * Invocations run over and over, as a schedule runs a function: each invoker on its own thread (a
 * Lambda execution environment of its own), started again a short pause after the last one ended,
 * whether it returned or threw, until the schedule is closed. Failed invocations are counted by
 * cause, as Lambda's error metric would show them.
 *
 * <p>{@link #hold()} keeps new invocations from starting (and waits for running ones to end) while
 * a test sets something up that a real deployment would never lose, e.g. re-creating the queues of
 * an emulator that keeps them in memory only.
 */
public final class Schedule implements AutoCloseable {
  private static final Pattern UUID_PATTERN =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private final Duration pause;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger invocations = new AtomicInteger();
  private final Map<String, Integer> failures = new TreeMap<>();
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
  private final List<Thread> threads = new ArrayList<>();

  private Schedule(Duration pause) {
    this.pause = pause;
  }

  /** Starts one thread per invoker, each invoking, pausing {@code pause}, invoking again. */
  public static Schedule start(String name, List<? extends Callable<?>> invokers, Duration pause) {
    Schedule schedule = new Schedule(pause);
    for (int i = 0; i < invokers.size(); i++) {
      Callable<?> invoker = invokers.get(i);
      schedule.threads.add(
          Thread.ofPlatform()
              .daemon()
              .name(name + "-" + (i + 1))
              .start(() -> schedule.run(invoker)));
    }
    return schedule;
  }

  /** Invocations started so far. */
  public int invocations() {
    return invocations.get();
  }

  /** Invocations so far that threw. */
  public synchronized int failedInvocations() {
    return failures.values().stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * Holds new invocations until the returned handle is closed; returns once running ones have
   * ended.
   */
  public Hold hold() {
    gate.writeLock().lock();
    return () -> gate.writeLock().unlock();
  }

  /**
   * E.g. "42 invocations, 5 failed: 5 x OutboxStoreException: could not claim ...": failures by
   * cause (the exception's class and the first line of its message, ids left out).
   */
  public synchronized String summary() {
    StringBuilder text =
        new StringBuilder(invocations.get() + " invocations, " + failedInvocations() + " failed");
    String separator = ": ";
    for (Map.Entry<String, Integer> f : failures.entrySet()) {
      text.append(separator).append(f.getValue()).append(" x ").append(f.getKey());
      separator = "; ";
    }
    return text.toString();
  }

  private void run(Callable<?> invoker) {
    while (running.get()) {
      gate.readLock().lock();
      try {
        if (!running.get()) {
          return;
        }
        invocations.incrementAndGet();
        invoker.call();
      } catch (Throwable e) {
        failed(e);
      } finally {
        gate.readLock().unlock();
      }
      try {
        Thread.sleep(pause.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private synchronized void failed(Throwable e) {
    String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    message = UUID_PATTERN.matcher(message).replaceAll("<uuid>");
    if (message.length() > 200) {
      message = message.substring(0, 200) + "...";
    }
    failures.merge(e.getClass().getSimpleName() + ": " + message, 1, Integer::sum);
  }

  /** Lets running invocations end and starts no more. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join();
    }
  }
}
