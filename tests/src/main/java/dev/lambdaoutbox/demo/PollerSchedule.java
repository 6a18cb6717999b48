package dev.lambdaoutbox.demo;

import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The poller's schedule, compressed: EventBridge starts the packaged poller every minute; here a
 * run follows a second after the last one ended. Each run is one minute of the alarms: its EMF line
 * gives that minute's values, and a run that failed or was killed counts in Lambda's {@code
 * Errors}.
 */
final class PollerSchedule implements AutoCloseable {
  static final Duration BETWEEN_RUNS = Duration.ofSeconds(1);

  private Map<String, String> environment;
  private final Alarms alarms;
  private final Steps steps;
  private PackagedPoller poller;
  private int runs;

  PollerSchedule(Map<String, String> environment, Alarms alarms, Steps steps) {
    this.environment = Map.copyOf(environment);
    this.alarms = alarms;
    this.steps = steps;
  }

  /** What the killed run left: the rows it held, and those of them the shop had already got. */
  record Crash(int exitStatus, Set<UUID> leased, Set<UUID> publishedNotMarked) {}

  /**
   * Runs the schedule until a run can be caught between publish and mark, and kills that run's JVM
   * (SIGKILL) at the first moment the shop has received an event whose row the run still holds in
   * the outbox. A run that ends before that moment (one that published nothing, say, because its
   * cold start used up the time its lease allows) is an ordinary run of the schedule. Empty when no
   * run could be caught within {@code within}.
   */
  Optional<Crash> killBetweenPublishAndMark(
      Supplier<Set<UUID>> atTheShop, Supplier<Set<UUID>> leasedRows, Duration within)
      throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      PackagedPoller victim = environment();
      int number = ++runs;
      CompletableFuture<LambdaRuntimeEmulator.Result> run = victim.submit();
      while (!run.isDone()) {
        Set<UUID> leased = leasedRows.get();
        Set<UUID> caught = new HashSet<>(atTheShop.get());
        caught.retainAll(leased);
        if (!caught.isEmpty()) {
          int status = victim.kill();
          poller = null;
          victim.close();
          steps.detail(
              "run %2d  killed (SIGKILL, exit status %d) holding %,d rows, %,d of them already"
                  + " at the shop",
              number, status, leased.size(), caught.size());
          minute(Double.NaN, 1); // no EMF line; Lambda counts the crash in Errors
          // Messages the run published just before it died are still on their way to the shop.
          Thread.sleep(2_000);
          Set<UUID> published = new HashSet<>(atTheShop.get());
          published.retainAll(leased);
          return Optional.of(new Crash(status, leased, published));
        }
        Thread.sleep(10);
      }
      report(number, victim.finished(run.get()));
      Thread.sleep(BETWEEN_RUNS.toMillis());
    }
    return Optional.empty();
  }

  /** Runs until {@code done} holds after a run, at most {@code maxRuns}; returns the runs made. */
  int runUntil(BooleanSupplier done, int maxRuns) throws Exception {
    for (int i = 0; i < maxRuns; i++) {
      run();
      if (done.getAsBoolean()) {
        return i + 1;
      }
      Thread.sleep(BETWEEN_RUNS.toMillis());
    }
    throw new IllegalStateException(
        "still not done after " + maxRuns + " scheduled runs; see the runs above");
  }

  /** One scheduled run, printed with its alarm datapoints. */
  PackagedPoller.Run run() throws Exception {
    PackagedPoller.Run run = environment().invoke();
    report(++runs, run);
    return run;
  }

  /** Prints a run's counts, its EMF metrics and its problems, and adds its minute to the alarms. */
  private void report(int number, PackagedPoller.Run run) throws IOException {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "run %2d ", number));
    if (run.failed()) {
      line.append(" FAILED ").append(run.errorType());
    } else {
      run.summary()
          .fields()
          .forEachRemaining(
              f -> {
                if (f.getValue().isInt() && f.getValue().asInt() != 0 && isCount(f.getKey())) {
                  line.append(' ').append(f.getKey()).append(' ').append(f.getValue().asInt());
                }
              });
      if (run.count("claimed") == 0) {
        line.append(" nothing due");
      }
    }
    line.append("  |");
    for (Alarms.Rule rule : Alarms.RULES) {
      if (rule != Alarms.POLLER_ERRORS) {
        line.append(' ').append(rule.metric()).append('=').append(run.metric(rule.metric()));
      }
    }
    steps.detail("%s", line);
    for (String problem : run.problems()) {
      steps.detail("        %s", problem);
    }
    minute(run, run.failed() ? 1 : 0);
  }

  /**
   * A new deployment with {@code changes} to the poller's environment: the warm execution
   * environment goes away and the next run is a cold start on the new configuration.
   */
  void redeploy(Map<String, String> changes) {
    Map<String, String> next = new LinkedHashMap<>(environment);
    next.putAll(changes);
    environment = Map.copyOf(next);
    close();
    poller = null;
  }

  private static boolean isCount(String field) {
    return !field.equals("durationMs") && !field.equals("rounds");
  }

  private void minute(PackagedPoller.Run run, int errors) {
    print(
        alarms.minute(
            metric ->
                metric.equals("Errors")
                    ? errors
                    : run.metrics() == null ? Double.NaN : run.metric(metric)));
  }

  private void minute(double metrics, int errors) {
    print(alarms.minute(metric -> metric.equals("Errors") ? errors : metrics));
  }

  private void print(List<Alarms.Transition> transitions) {
    for (Alarms.Transition t : transitions) {
      steps.detail("        %s", t);
    }
  }

  /** The warm execution environment, or a new one (a cold start) when there is none. */
  private PackagedPoller environment() throws Exception {
    if (poller == null) {
      poller = new PackagedPoller(environment);
    }
    return poller;
  }

  @Override
  public void close() {
    if (poller != null) {
      poller.close();
    }
  }
}
