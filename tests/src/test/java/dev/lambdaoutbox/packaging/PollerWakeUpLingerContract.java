package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Overlapping wake-ups, end to end: the packaged poller jar in {@link #ENVIRONMENTS} execution
 * environments (JVMs taking invocations from one queue, as Lambda's do) on the Runtime API
 * emulator, woken by the application's {@link PollerWaker} after each commit, publishing to SQS on
 * the test bed. No scheduled invocation is ever made, so whatever is published was published by a
 * woken run.
 *
 * <ul>
 *   <li>A sustained 50 commits a second: one woken run lingers through the burst; the wake-ups that
 *       reach the other environments meanwhile publish what is due once and stop ({@code
 *       anotherLingers}) instead of lingering beside it.
 *   <li>The race at a lingering run's stop: a commit made around the moment the lingering run finds
 *       it has found nothing for its linger, and stops, is published by a woken run all the same,
 *       never left for the schedule.
 * </ul>
 *
 * One subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PollerWakeUpLingerContract {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ENVIRONMENTS = 3;
  private static final Duration LINGER = Duration.ofSeconds(2);

  /**
   * How long two lingering runs may seem to overlap at a hand-over: the one stopping gives the
   * lease back before its purge and metrics, and each run's start is reckoned from when its
   * response reached the emulator, which a loaded machine delays. Two runs lingering without the
   * lease would overlap by the whole linger at least.
   */
  private static final Duration HAND_OVER = Duration.ofSeconds(1);

  abstract TestDatabase database();

  private TestDatabase db;
  private OutboxTables tables;
  private AwsEndpoint aws;
  private String queue;
  private QueueDrainer drainer;
  private LambdaRuntimeEmulator runtime;
  private final List<PackagedFunction> pollers = new ArrayList<>();
  private LambdaClient lambda;
  private PollerWaker waker;
  private Jdbi jdbi;
  private OutboxWriter writer;
  private final Set<CompletableFuture<LambdaRuntimeEmulator.Result>> watched =
      ConcurrentHashMap.newKeySet();
  private final Map<CompletableFuture<LambdaRuntimeEmulator.Result>, Long> endedAt =
      new ConcurrentHashMap<>();
  private Thread watcher;

  @BeforeAll
  void start() throws Exception {
    db = database();
    tables = db.createTables("linger");
    aws = TestEndpoints.aws();
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName("linger-" + UUID.randomUUID())).queueUrl();
    }
    drainer = new QueueDrainer(aws, queue, 2);
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, aws);
    env.put("OUTBOX_DEFAULT_DESTINATION", queue);
    env.put("OUTBOX_WAKE_LINGER_MS", Long.toString(LINGER.toMillis()));
    env.put("OUTBOX_LOG_LEVEL", "WARN");
    runtime = LambdaRuntimeEmulator.of(OutboxFunction.POLLER);
    for (int i = 0; i < ENVIRONMENTS; i++) {
      pollers.add(
          PackagedFunction.start(
              OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, runtime));
    }
    watcher = Thread.ofPlatform().daemon().name("run-watcher").start(this::watchRuns);
    lambda = LambdaInvokeStandIn.client(URI.create(runtime.invokeEndpoint()));
    // No quiet period: a wake-up after each commit (at most one per 100 ms), so that wake-ups reach
    // the environments while a run lingers. (The quiet period is WakeUpQuietPeriodRaceTest's.)
    waker =
        PollerWaker.builder()
            .functionName("outbox-poller:live")
            .lambdaClient(lambda)
            .quietPeriod(Duration.ZERO)
            .build();
    jdbi = db.jdbi();
    writer = OutboxWriter.builder().tables(tables).build();
    // Warm environments, as earlier runs leave them: every one publishes once. Cold starts are not
    // under test here, so a cold start that fails (a connection timing out on a loaded machine) is
    // only warming too; the rows it left are published by the next round.
    for (int round = 0; round < 3; round++) {
      List<CompletableFuture<LambdaRuntimeEmulator.Result>> warm = new ArrayList<>();
      for (int i = 0; i < ENVIRONMENTS; i++) {
        commit();
        warm.add(runtime.submit("{\"outboxWakeUp\":true}", Duration.ofSeconds(60)));
      }
      for (CompletableFuture<LambdaRuntimeEmulator.Result> f : warm) {
        f.get(60, TimeUnit.SECONDS);
      }
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (watcher != null) {
      watcher.interrupt();
    }
    if (waker != null) {
      waker.close();
    }
    if (lambda != null) {
      lambda.close();
    }
    for (PackagedFunction p : pollers) {
      p.close();
    }
    if (runtime != null) {
      runtime.close();
    }
    if (drainer != null) {
      drainer.close();
    }
    if (queue != null) {
      try (SqsClient sqs = aws.sqs()) {
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
    }
    if (tables != null) {
      db.dropTables(tables);
    }
  }

  @Test
  void aSustainedFiftyCommitsASecond_keepsOneWokenRunLingering_theOtherWakeUpsDrainOnceAndStop()
      throws Exception {
    int before = runtime.invokedByFunctions().size();
    List<String> ids = new ArrayList<>();
    long start = System.nanoTime();
    long burstEnd = start + TimeUnit.SECONDS.toNanos(5);
    for (long next = start;
        next < burstEnd && System.nanoTime() < burstEnd;
        next += TimeUnit.MILLISECONDS.toNanos(20)) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      ids.add(commitAndWake());
    }
    long committed = System.nanoTime();
    assertThat(drainer.awaitEvents(ids, Duration.ofSeconds(30)))
        .as("every commit published by a woken run; missing %s", drainer.missing(ids))
        .isTrue();
    long publishedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - committed);
    List<Run> runs = wokenSince(before);

    Map<String, Integer> byReason = new TreeMap<>();
    List<Run> lingering = new ArrayList<>();
    long busyMs = 0;
    int published = 0;
    for (Run run : runs) {
      byReason.merge(run.summary().get("stoppedBecause").asText(), 1, Integer::sum);
      busyMs += run.durationMs();
      published += run.summary().get("published").asInt();
      if (run.summary().get("stoppedBecause").asText().equals("lingered")) {
        lingering.add(run);
      }
    }
    double seconds = (committed - start) / 1e9;
    System.out.printf(
        "%s: %d commits in %.1f s, %d wake-ups, runs by why they stopped %s; lingering runs %s; at most %d woken runs at once; woken runs busy %.2f s per second of"
            + " commits; last event %d ms after the last commit%n",
        db.name(),
        ids.size(),
        seconds,
        runs.size(),
        byReason,
        lingering.stream().map(Run::summary).toList(),
        mostAtOnce(runs, Duration.ZERO),
        busyMs / 1000.0 / seconds,
        publishedMs);
    assertThat(published).as("each commit published once").isEqualTo(ids.size());
    assertThat(lingering).as("a woken run lingered through the commits").isNotEmpty();
    // A run that stops gives its lease back before its retention purge and metrics, while the next
    // may already linger: overlaps shorter than that hand-over are not counted.
    assertThat(mostAtOnce(lingering, HAND_OVER))
        .as(
            "never two lingering runs at once (a hand-over may overlap by the one stopping's"
                + " purge); lingering runs by start and end, ms after the first commit: %s",
            lingering.stream()
                .map(
                    r ->
                        List.of(
                            (r.startedAt() - start) / 1_000_000, (r.endedAt() - start) / 1_000_000))
                .toList())
        .isEqualTo(1);
    assertThat(byReason.getOrDefault("anotherLingers", 0))
        .as("wake-ups that found rows while a run lingered published them once and stopped")
        .isPositive();
    assertThat(drainer.duplicates()).isEmpty();
  }

  @Test
  void aCommitAsTheLingeringRunStops_isPublishedByItsOwnWakeUp_notLeftForTheSchedule()
      throws Exception {
    Map<String, Integer> secondRunStopped = new TreeMap<>();
    // Around the lingering run's stop: it claims every 100 ms and stops once it has found nothing
    // for the linger, counted from the claim that found the first event.
    long[] offsetsMs = {-120, -60, -20, 0, 20, 40, 60, 80, 100, 140, 200};
    for (long offsetMs : offsetsMs) {
      int before = runtime.invokedByFunctions().size();
      String first = commitAndWake();
      assertThat(PollerWakeUpTimelineContract.leaves(jdbi, tables, first, Duration.ofSeconds(10)))
          .as("offset %d ms: the first event published", offsetMs)
          .isTrue();
      long foundAt = System.nanoTime();
      long at = foundAt + LINGER.toNanos() + TimeUnit.MILLISECONDS.toNanos(offsetMs);
      long wait = at - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      String second = commitAndWake();
      assertThat(drainer.awaitEvents(List.of(first, second), Duration.ofSeconds(10)))
          .as("offset %d ms: both published by woken runs, no schedule", offsetMs)
          .isTrue();
      List<Run> runs = wokenSince(before);
      assertThat(runs).as("one wake-up per commit, 100 ms apart or more").hasSize(2);
      assertThat(runs.stream().mapToInt(r -> r.summary().get("published").asInt()).sum())
          .isEqualTo(2);
      secondRunStopped.merge(
          offsetMs + " ms: " + runs.get(1).summary().get("stoppedBecause").asText(),
          1,
          Integer::sum);
    }
    System.out.printf(
        "%s: the second commit's wake-up, by its offset from the lingering run's stop: %s%n",
        db.name(), secondRunStopped);
    assertThat(drainer.duplicates()).isEmpty();
  }

  /** Commits one event without waking anything. */
  private void commit() {
    jdbi.useTransaction(
        handle ->
            writer.append(
                handle,
                OutboxEvent.builder()
                    .aggregateType("order")
                    .aggregateId("order-warm")
                    .eventType("order.created")
                    .payload("{}")
                    .build()));
  }

  /** Commits one event and wakes the poller after it; returns its id. */
  private String commitAndWake() {
    return PollerWakeUpTimelineContract.commit(jdbi, writer, waker);
  }

  /** A woken run: its summary, and when it ended by this JVM's clock. */
  private record Run(JsonNode summary, long endedAt) {
    long durationMs() {
      return summary.get("durationMs").asLong();
    }

    long startedAt() {
      return endedAt - TimeUnit.MILLISECONDS.toNanos(durationMs());
    }
  }

  /** The most of {@code runs} that ran at once, overlaps shorter than {@code slack} not counted. */
  private static int mostAtOnce(List<Run> runs, Duration slack) {
    int most = 0;
    for (Run run : runs) {
      long at = run.startedAt() + slack.toNanos();
      int running = 0;
      for (Run other : runs) {
        if (other.startedAt() <= at && other.endedAt() > at) {
          running++;
        }
      }
      most = Math.max(most, running);
    }
    return most;
  }

  /** The runs woken since the {@code before}th, once all have ended. */
  private List<Run> wokenSince(int before) throws Exception {
    // The waker sends the wake-up of the last commit up to an interval later.
    Thread.sleep(300);
    List<CompletableFuture<LambdaRuntimeEmulator.Result>> all = runtime.invokedByFunctions();
    List<Run> runs = new ArrayList<>();
    for (CompletableFuture<LambdaRuntimeEmulator.Result> f : all.subList(before, all.size())) {
      JsonNode summary = summary(f);
      // The watcher notes the end in a callback, which may run just after get() returns here.
      Long ended = endedAt.get(f);
      for (int i = 0; ended == null && i < 1_000; i++) {
        Thread.sleep(2);
        ended = endedAt.get(f);
      }
      assertThat(ended).as("the end of run %s noted", summary).isNotNull();
      runs.add(new Run(summary, ended));
    }
    return runs;
  }

  /** Notes when each woken run ends, as the emulator starts it. */
  private void watchRuns() {
    while (!Thread.currentThread().isInterrupted()) {
      for (CompletableFuture<LambdaRuntimeEmulator.Result> f : runtime.invokedByFunctions()) {
        if (watched.add(f)) {
          f.whenComplete((r, e) -> endedAt.put(f, System.nanoTime()));
        }
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private JsonNode summary(CompletableFuture<LambdaRuntimeEmulator.Result> f) throws Exception {
    LambdaRuntimeEmulator.Result result = f.get(60, TimeUnit.SECONDS);
    assertThat(result.failed()).as(result.body()).isFalse();
    return JSON.readTree(result.body());
  }
}
