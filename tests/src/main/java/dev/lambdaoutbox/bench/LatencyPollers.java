package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.EmbeddedPoller;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.TestDatabase;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * The real poller ({@link EmbeddedPoller} over the JDBC store) in its low-latency mode ({@code
 * OUTBOX_POLL_INTERVAL_MS}), invoked as Lambda would invoke it, in one of two ways:
 *
 * <ul>
 *   <li>{@link #runLong}: one invocation whose remaining time lasts until polling may stop, as a
 *       long timeout gives (the steady state of the low-latency mode);
 *   <li>{@link #runScheduled}: an invocation every {@code period}, each with {@code timeout} of
 *       remaining time, as {@code rate(1 minute)} with the template's 60 s timeout starts them. A
 *       warm poller is reused, as a warm Lambda container is; invocations that overlap get one
 *       each.
 * </ul>
 *
 * Its rows are stamped in {@link EventTimes} by a {@link StampingStore} and a {@link
 * StampingPublisher}.
 */
final class LatencyPollers implements AutoCloseable {
  private final PollerConfig config;
  private final TestDatabase db;
  private final OutboxTables tables;
  private final LatencyBroker broker;
  private final EventTimes times;
  private final Queue<EmbeddedPoller> idle = new ConcurrentLinkedQueue<>();
  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
  private final List<PollSummary> summaries = new CopyOnWriteArrayList<>();

  LatencyPollers(
      TestDatabase db,
      OutboxTables tables,
      LatencyBroker broker,
      String destination,
      Duration pollInterval,
      Map<String, String> settings,
      EventTimes times) {
    this.db = db;
    this.tables = tables;
    this.broker = broker;
    this.times = times;
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.put(PollerVariables.DEFAULT_DESTINATION.name(), destination);
    env.put(PollerVariables.POLL_INTERVAL_MS.name(), Long.toString(pollInterval.toMillis()));
    env.putAll(settings);
    this.config = PollerConfig.fromEnvironment(env);
  }

  /**
   * One invocation that keeps polling until {@code stopAtMillis} (wall clock; it may move, e.g.
   * once the writers are done), then returns once its last round is done.
   */
  void runLong(LongSupplier stopAtMillis) {
    // The poller stops once less than interval + margin + one publish call is left.
    long keep =
        config.idle().pollInterval().toMillis()
            + config.timing().safetyMargin().toMillis()
            + config.timing().publishTimeout().toMillis();
    invoke(
        () -> {
          long stopAt = stopAtMillis.getAsLong();
          // Long.MAX_VALUE: no end set yet.
          return stopAt == Long.MAX_VALUE
              ? Duration.ofDays(1).toMillis()
              : stopAt + keep - System.currentTimeMillis();
        },
        "long");
  }

  /**
   * Invocations every {@code period} with {@code timeout} each, the first now, the last started
   * before {@code stopAtMillis}; returns once the last has ended.
   */
  void runScheduled(Duration period, Duration timeout, LongSupplier stopAtMillis)
      throws InterruptedException {
    List<Thread> running = new ArrayList<>();
    int n = 0;
    for (long start = System.currentTimeMillis();
        start < stopAtMillis.getAsLong();
        start += period.toMillis()) {
      long wait = start - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      long end = start + timeout.toMillis();
      String id = "scheduled-" + ++n;
      running.add(
          Thread.ofPlatform()
              .name(id)
              .start(() -> invoke(() -> end - System.currentTimeMillis(), id)));
    }
    for (Thread t : running) {
      t.join();
    }
  }

  private void invoke(LongSupplier remainingMillis, String requestId) {
    EmbeddedPoller poller = idle.poll();
    if (poller == null) {
      poller = newPoller();
    }
    try {
      summaries.add(poller.run(remainingMillis, requestId));
    } finally {
      idle.add(poller);
    }
  }

  private EmbeddedPoller newPoller() {
    JdbcConnectionProvider connections = Stores.connections(db, tables);
    resources.add(connections);
    OutboxStore store = OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables).build();
    Clock clock = Clock.systemUTC();
    EmbeddedPoller poller =
        broker
            .publishFrom(EmbeddedPoller.builder(config, new StampingStore(store, times)), times)
            .listener(new StampingPublisher(times))
            .clock(clock)
            .random(new SplittableRandom())
            .logger(
                new JsonLogger(
                    "latency", LatencyPollers.class, JsonLogger.Level.WARN, System.err, clock))
            .metrics(
                new EmfMetrics(
                    "Bench", "latency", new PrintStream(OutputStream.nullOutputStream()), clock))
            .build();
    resources.add(poller);
    return poller;
  }

  /** What the invocations reported. */
  List<PollSummary> summaries() {
    return List.copyOf(summaries);
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable r : resources) {
      r.close();
    }
  }
}
