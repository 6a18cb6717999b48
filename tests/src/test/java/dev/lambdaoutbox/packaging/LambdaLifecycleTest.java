package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.testing.AsyncInvokeConfig;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator.Result;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.SandboxProbeFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The runtime emulator holds a function to Lambda's lifecycle, shown on a function that reports
 * what its environment went through ({@link SandboxProbeFunction}): frozen between invocations (its
 * process stopped, its own threads standing still), killed mid-call at its timeout and replaced by
 * a fresh environment, never more invocations at once than its reserved concurrency (asynchronous
 * events waiting in the queue meanwhile), a failed event retried as configured, and an event older
 * than the maximum event age discarded unrun.
 */
class LambdaLifecycleTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private static LambdaRuntimeEmulator.EnvironmentFactory probes() {
    return env ->
        PackagedFunction.startFixture(
            "probe", SandboxProbeFunction.class, Map.of(), env, List.of("-Xshare:auto"));
  }

  private static JsonNode answer(Result result) throws Exception {
    assertThat(result.failed()).as(result.body()).isFalse();
    return JSON.readTree(result.body());
  }

  @Test
  void betweenInvocations_theProcessIsStopped_andItsThreadsStandStill() throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator()) {
      runtime.scaleOnDemand(probes(), 1);
      JsonNode first = answer(runtime.invoke("{}", TIMEOUT));
      long pid = first.get("pid").asLong();
      Thread.sleep(1_000);
      String state = processState(pid);
      JsonNode second = answer(runtime.invoke("{}", TIMEOUT));

      assertThat(state).as("the process's state between invocations (T: stopped)").isEqualTo("T");
      assertThat(second.get("pid").asLong()).isEqualTo(pid);
      assertThat(second.get("ticks").asLong() - first.get("ticks").asLong())
          .as("ticks of a 10 ms timer across 1 s between invocations (about 100 unfrozen)")
          .isLessThan(20);
    }
  }

  @Test
  void anInvocationPastItsTimeout_isKilledMidCall_andAFreshEnvironmentTakesTheNext()
      throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator()) {
      runtime.scaleOnDemand(probes(), 1);
      long pid = answer(runtime.invoke("{}", TIMEOUT)).get("pid").asLong();

      Result timedOut = runtime.invoke("{\"sleepMs\":30000}", Duration.ofSeconds(1));
      assertThat(timedOut.timedOut()).as(timedOut.body()).isTrue();
      assertThat(timedOut.body()).contains("Task timed out after 1.00 seconds");
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("the environment's process, killed")
          .isFalse();

      JsonNode next = answer(runtime.invoke("{}", TIMEOUT));
      assertThat(next.get("pid").asLong()).isNotEqualTo(pid);
      assertThat(next.get("invocation").asInt()).as("a fresh environment's first").isEqualTo(1);
      assertThat(runtime.environmentsStarted()).isEqualTo(2);
    }
  }

  @Test
  void asynchronousEventsBeyondTheReservedConcurrency_waitInTheQueue() throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator()) {
      runtime.scaleOnDemand(probes(), 2);
      List<CompletableFuture<Result>> events = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        events.add(runtime.submit("{\"sleepMs\":300}", TIMEOUT));
      }
      for (CompletableFuture<Result> event : events) {
        answer(event.get(60, TimeUnit.SECONDS));
      }
      assertThat(runtime.mostRunningAtOnce()).isEqualTo(2);
      assertThat(runtime.environmentsStarted()).isEqualTo(2);
    }
  }

  @Test
  void aFailedEventIsRetried_andOneOlderThanTheMaximumAgeIsDiscardedUnrun() throws Exception {
    AsyncInvokeConfig config =
        new AsyncInvokeConfig(1, Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ZERO);
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator(TIMEOUT, config)) {
      runtime.scaleOnDemand(probes(), 1);
      answer(runtime.invoke("{}", TIMEOUT)); // started: the events' age is their time queued
      Result failed = runtime.submit("{\"fail\":true}", TIMEOUT).get(60, TimeUnit.SECONDS);
      assertThat(failed.failed()).isTrue();
      assertThat(failed.body()).as("the second attempt's error").contains("invocation 3");

      CompletableFuture<Result> busy = runtime.submit("{\"sleepMs\":3000}", TIMEOUT);
      CompletableFuture<Result> late = runtime.submit("{}", TIMEOUT);
      assertThat(late.get(60, TimeUnit.SECONDS).errorType()).isEqualTo("EventAgeExceeded");
      answer(busy.get(60, TimeUnit.SECONDS));
      assertThat(runtime.discardedEvents()).isEqualTo(1);
    }
  }

  /** The state letter of {@code /proc/<pid>/stat}: R running, S sleeping, T stopped. */
  private static String processState(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  }
}
