package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Application writers committing events at a steady rate, open-loop: event {@code n} is due at
 * {@code start + n / rate}, whatever the system does. A writer takes the next due event, waits for
 * its time, and commits it through {@link OutboxWriter} in a transaction of its own, together with
 * any further events already due (up to {@link #MAX_PER_TRANSACTION}), so writers that fall behind
 * catch up instead of slowing the schedule down. The real commit time is taken right after {@code
 * commit()} returns.
 */
final class OpenLoopWriters implements AutoCloseable {
  /** The most events one transaction takes when writers are behind their schedule. */
  static final int MAX_PER_TRANSACTION = 20;

  private static final String PAYLOAD =
      "{\"orderId\":\"o-%d\",\"customer\":\"c-1234567\",\"currency\":\"EUR\",\"lines\":"
          + "[{\"sku\":\"SKU-0001\",\"qty\":2,\"price\":\"19.90\"},{\"sku\":\"SKU-0002\",\"qty\":1,"
          + "\"price\":\"5.00\"}],\"note\":\"latency benchmark\"}";

  private final List<Connection> connections = new ArrayList<>();
  private final OutboxWriter writer;
  private final EventTimes times;
  private final ExecutorService pool;
  private final Runnable afterCommit;

  OpenLoopWriters(TestDatabase db, OutboxWriter writer, int threads, EventTimes times)
      throws SQLException {
    this(db, writer, threads, times, () -> {});
  }

  /**
   * @param afterCommit run after each commit, as an application calls {@code
   *     PollerWaker.afterCommit()}
   */
  OpenLoopWriters(
      TestDatabase db, OutboxWriter writer, int threads, EventTimes times, Runnable afterCommit)
      throws SQLException {
    this.writer = writer;
    this.times = times;
    this.afterCommit = afterCommit;
    for (int i = 0; i < threads; i++) {
      Connection c = db.open();
      c.setAutoCommit(false);
      connections.add(c);
    }
    this.pool = Executors.newFixedThreadPool(threads);
  }

  /**
   * Commits {@code rate * seconds} events on the schedule and returns once all are committed;
   * returns how many transactions it took.
   */
  long run(double rate, double seconds) throws Exception {
    long total = Math.round(rate * seconds);
    long start = System.nanoTime() + 10_000_000L;
    long startMicros = EventTimes.nowMicros() + 10_000L;
    AtomicLong next = new AtomicLong();
    AtomicLong transactions = new AtomicLong();
    List<Future<?>> writers = new ArrayList<>();
    for (Connection c : connections) {
      writers.add(
          pool.submit(
              () -> {
                while (true) {
                  long first = next.getAndIncrement();
                  if (first >= total) {
                    return null;
                  }
                  long due = start + (long) (first * 1e9 / rate);
                  long wait = due - System.nanoTime();
                  while (wait > 0) {
                    LockSupport.parkNanos(wait);
                    wait = due - System.nanoTime();
                  }
                  long last = takeDue(next, first, start, rate, total);
                  commit(c, first, last, startMicros + (long) (first * 1e6 / rate));
                  transactions.incrementAndGet();
                }
              }));
    }
    for (Future<?> f : writers) {
      f.get();
    }
    return transactions.get();
  }

  /**
   * Extends a writer's share from {@code first} to every further event already due, up to {@link
   * #MAX_PER_TRANSACTION}; returns the last index taken.
   */
  private static long takeDue(AtomicLong next, long first, long start, double rate, long total) {
    long dueNow = Math.min(total - 1, (long) ((System.nanoTime() - start) * rate / 1e9));
    long limit = Math.min(dueNow, first + MAX_PER_TRANSACTION - 1);
    long last = first;
    while (true) {
      long n = next.get();
      if (n != last + 1 || n > limit || !next.compareAndSet(n, n + 1)) {
        return last;
      }
      last = n;
    }
  }

  /**
   * Commits events {@code first} to {@code last}, the first of which was due at {@code dueMicros}.
   */
  private void commit(Connection c, long first, long last, long dueMicros) throws SQLException {
    List<OutboxEvent> events = new ArrayList<>((int) (last - first + 1));
    List<UUID> ids = new ArrayList<>(events.size());
    for (long n = first; n <= last; n++) {
      OutboxEvent e =
          OutboxEvent.builder()
              .aggregateType("order")
              .aggregateId("o-" + n)
              .eventType("order.created")
              .payload(String.format(PAYLOAD, n))
              .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
              .build();
      events.add(e);
      ids.add(e.id());
    }
    writer.appendAll(c, events);
    c.commit();
    long committed = EventTimes.nowMicros();
    times.committed(ids, committed, committed - dueMicros);
    afterCommit.run();
  }

  @Override
  public void close() throws SQLException {
    pool.shutdownNow();
    for (Connection c : connections) {
      c.close();
    }
  }
}
