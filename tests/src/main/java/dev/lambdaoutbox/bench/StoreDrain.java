package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drains the outbox as pollers do: claim a batch, read the destination health table (as the poller
 * does once per claim), "publish" each row (count it), complete the batch as published, until a
 * claim comes back empty. Each thread is a poller with its own store and connection.
 */
final class StoreDrain {
  private StoreDrain() {}

  static DrainResult run(TestDatabase db, OutboxTables tables, int threads, int claimSize)
      throws Exception {
    return run(db, tables, threads, claimSize, Ordering.NONE);
  }

  /**
   * With {@link Ordering#AGGREGATE} a claim may come back empty while another thread holds the
   * heads of every aggregate left; a thread then stops only once no other thread has rows in hand.
   */
  static DrainResult run(
      TestDatabase db, OutboxTables tables, int threads, int claimSize, Ordering ordering)
      throws Exception {
    AtomicInteger inHand = new AtomicInteger();
    AtomicLong published = new AtomicLong();
    AtomicLong payloadChars = new AtomicLong();
    AtomicLong claimNanos = new AtomicLong();
    AtomicLong healthNanos = new AtomicLong();
    AtomicLong completeNanos = new AtomicLong();
    List<JdbcConnectionProvider> providers = new ArrayList<>();
    List<OutboxStore> stores = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      JdbcConnectionProvider p = Stores.connections(db, tables);
      providers.add(p);
      OutboxStore store =
          OutboxStore.builder(JdbcExecutor.of(p)).tables(tables).ordering(ordering).build();
      store.backlog(Instant.now()); // connect before the clock starts, as a warm Lambda would be
      stores.add(store);
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    try {
      List<Future<?>> pollers = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        OutboxStore store = stores.get(i);
        String owner = "bench-" + i;
        pollers.add(
            pool.submit(
                () -> {
                  while (true) {
                    Instant now = Instant.now();
                    long t0 = System.nanoTime();
                    inHand.incrementAndGet();
                    List<OutboxMessage> claimed =
                        store.claim(owner, claimSize, now, Duration.ofMinutes(5)).messages();
                    long t1 = System.nanoTime();
                    claimNanos.addAndGet(t1 - t0);
                    if (claimed.isEmpty()) {
                      if (inHand.decrementAndGet() == 0 || ordering == Ordering.NONE) {
                        return null;
                      }
                      Thread.sleep(1);
                      continue;
                    }
                    store.destinationHealth().all();
                    healthNanos.addAndGet(System.nanoTime() - t1);
                    List<DeliveryOutcome> outcomes = new ArrayList<>(claimed.size());
                    for (OutboxMessage m : claimed) {
                      payloadChars.addAndGet(m.payload().length()); // the "publisher"
                      outcomes.add(new DeliveryOutcome.Published(m.id()));
                    }
                    long t2 = System.nanoTime();
                    int sent =
                        store.complete(owner, outcomes, now).count(Completion.Result.PUBLISHED);
                    completeNanos.addAndGet(System.nanoTime() - t2);
                    published.addAndGet(sent);
                    inHand.decrementAndGet();
                  }
                }));
      }
      for (Future<?> f : pollers) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      providers.forEach(JdbcConnectionProvider::close);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new DrainResult(
        "JDBC store"
            + (ordering == Ordering.AGGREGATE ? " ordered" : "")
            + ", "
            + threads
            + " thread"
            + (threads > 1 ? "s" : "")
            + ", claim "
            + claimSize,
        published.get(),
        seconds,
        String.format(
            "claim %.1f s, health read %.2f s, complete %.1f s (summed over threads)",
            claimNanos.get() / 1e9, healthNanos.get() / 1e9, completeNanos.get() / 1e9));
  }
}
