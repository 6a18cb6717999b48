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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Drains the outbox with the real poller: {@code pollers} concurrent invocations of {@link
 * EmbeddedPoller} (routing, building messages, the invocation budget, recording outcomes), each
 * with its own connection (two when it pipelines), publishing to a {@link CountingPublisher}.
 * Unlike {@link StoreDrain}, this is everything an invocation does but the broker call.
 */
final class PollerRunDrain {
  private PollerRunDrain() {}

  /** Builds one invocation's store for a poller configuration. */
  @FunctionalInterface
  interface StoreSource {
    OutboxStore store(PollerConfig config);
  }

  /**
   * @param extraEnvironment poller settings beyond the defaults (e.g. an opt-in under test)
   */
  static DrainResult run(
      TestDatabase db,
      OutboxTables tables,
      int pollers,
      int batchSize,
      Map<String, String> extraEnvironment)
      throws Exception {
    List<JdbcConnectionProvider> providers = new ArrayList<>();
    try {
      return run(
          "poller invocation",
          db,
          tables,
          pollers,
          batchSize,
          extraEnvironment,
          config -> {
            JdbcConnectionProvider connections = Stores.connections(db, tables);
            providers.add(connections);
            OutboxStore.Builder builder =
                OutboxStore.builder(JdbcExecutor.of(connections)).tables(tables);
            if (config.publishing().pipeline()) {
              builder.completionsOnSecondConnection(); // as PollerWiring builds it
            }
            return builder.build();
          });
    } finally {
      providers.forEach(JdbcConnectionProvider::close);
    }
  }

  /** The same over stores from {@code stores} (e.g. over the Data API), named {@code name}. */
  static DrainResult run(
      String name,
      TestDatabase db,
      OutboxTables tables,
      int pollers,
      int batchSize,
      Map<String, String> extraEnvironment,
      StoreSource stores)
      throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", db.jdbcUrl());
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.put(
        PollerVariables.DEFAULT_DESTINATION.name(),
        "https://sqs.us-east-1.amazonaws.com/000000000000/drain");
    env.put(PollerVariables.BATCH_SIZE.name(), Integer.toString(batchSize));
    env.putAll(extraEnvironment);
    PollerConfig config = PollerConfig.fromEnvironment(env);
    Clock clock = Clock.systemUTC();
    PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
    List<EmbeddedPoller> invocations = new ArrayList<>();
    for (int i = 0; i < pollers; i++) {
      OutboxStore store = stores.store(config);
      store.backlog(Instant.now()); // connect before the clock starts, as a warm Lambda would be
      invocations.add(
          new CountingPublisher()
              .publishFrom(EmbeddedPoller.builder(config, store))
              .clock(clock)
              .random(new SplittableRandom(i))
              .logger(
                  new JsonLogger(
                      "drain", PollerRunDrain.class, JsonLogger.Level.WARN, System.err, clock))
              .metrics(new EmfMetrics("Bench", "drain", discard, clock))
              .build());
    }
    ExecutorService pool = Executors.newFixedThreadPool(pollers);
    long start = System.nanoTime();
    List<PollSummary> summaries = new ArrayList<>();
    try {
      List<Future<PollSummary>> running = new ArrayList<>();
      for (int i = 0; i < pollers; i++) {
        EmbeddedPoller poller = invocations.get(i);
        String id = "drain-" + i;
        running.add(pool.submit(() -> poller.run(() -> 15 * 60 * 1000L, id)));
      }
      for (Future<PollSummary> f : running) {
        summaries.add(f.get());
      }
    } finally {
      pool.shutdownNow();
      invocations.forEach(EmbeddedPoller::close);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long published = summaries.stream().mapToLong(PollSummary::published).sum();
    int rounds = summaries.stream().mapToInt(PollSummary::rounds).sum();
    return new DrainResult(
        name
            + (pollers > 1 ? "s x" + pollers : "")
            + ", batch "
            + batchSize
            + (extraEnvironment.isEmpty() ? "" : " " + extraEnvironment),
        published,
        seconds,
        String.format("%d claims, counting publisher", rounds));
  }
}
