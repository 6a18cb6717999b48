package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.DrainWatch;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.Schedule;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The packaged poller killed with SIGKILL while it publishes, as Lambda ends an environment (a
 * timeout, memory, a lost host): the {@code -lambda.jar} in its own JVM under AWS's runtime
 * interface client, fed by the Runtime API emulator, draining committed events from the shared
 * PostgreSQL to a queue of its own on the test bed's SNS/SQS endpoint, on the real clock with the
 * shortest lease (10 s). Its JVM is killed mid-drain, with rows leased to it; a fresh environment
 * (new JVM, new runtime) is then invoked every half second, as the schedule would.
 *
 * <p>The rows the dead invocation held stay untouched until their lease ends, then the new one
 * claims and publishes them. In the end every committed event has arrived at least once (the dead
 * one may have published rows it never recorded: those arrive twice, and are counted), no row is
 * left and nothing was dead-lettered.
 */
class PollerJarKilledTest {
  private static final String POLLER = "dev.lambdaoutbox.poller.PollerHandler::handleRequest";
  private static final int EVENTS = 400;
  private static final int LEASE_SECONDS = 10;
  private static final Duration DRAINED_WITHIN = Duration.ofMinutes(4);

  @Test
  void pollerJvmKilledMidDrain_aFreshOneReclaimsItsRowsAfterTheLease_everyEventArrives()
      throws Exception {
    long started = System.nanoTime();
    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = db.createTables("killed");
    String scheduledEvent =
        Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
    AwsEndpoint aws = TestEndpoints.aws();
    String queue;
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName("killed-drain-" + UUID.randomUUID())).queueUrl();
    }
    try {
      List<String> committed = CommittedEvents.write(db, tables, EVENTS, 20);
      Map<String, String> env = environment(db, tables, aws, queue);

      int exitStatus;
      Map<String, Instant> leasedAtKill;
      long receivedAtKill;
      boolean untouchedUntilLeaseEnd;
      boolean drained;
      Set<String> leasedMissing;
      String schedule;
      DrainWatch watch;
      try (QueueDrainer drainer = new QueueDrainer(aws, queue, 2)) {
        watch = new DrainWatch(db, tables, drainer, committed);
        try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
            PackagedFunction doomed =
                PackagedFunction.start("poller-function", POLLER, env, runtime)) {
          CompletableFuture<LambdaRuntimeEmulator.Result> invocation =
              runtime.submit(scheduledEvent, Duration.ofMinutes(5));
          awaitPublishingWithRowsLeased(db, tables, drainer, invocation);
          exitStatus = doomed.kill();
          receivedAtKill = drainer.messages();
          leasedAtKill = leasedRows(db, tables);
        }
        assertThat(exitStatus).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
        assertThat(leasedAtKill).as("rows leased to the killed poller").isNotEmpty();

        try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
            PackagedFunction fresh =
                PackagedFunction.start("poller-function", POLLER, env, runtime)) {
          try (Schedule pollers =
              Schedule.start(
                  "fresh-poller",
                  List.of(() -> invoke(runtime, scheduledEvent)),
                  Duration.ofMillis(500))) {
            untouchedUntilLeaseEnd = untouchedUntilLeaseEnds(db, tables, leasedAtKill);
            drained = watch.awaitDrained(DRAINED_WITHIN);
            leasedMissing = drainer.missing(leasedAtKill.keySet());
            schedule = pollers.summary();
          }
          schedule += "; the end of its output:\n" + tail(fresh.output());
        }
      }

      String report =
          String.format(
              "poller JVM killed (exit status %d) with %,d rows leased to it and %,d messages"
                  + " received; after %.1f s: %s. Fresh poller: %s",
              exitStatus,
              leasedAtKill.size(),
              receivedAtKill,
              (System.nanoTime() - started) / 1e9,
              watch.report(),
              schedule);
      System.out.println(report);
      assertThat(untouchedUntilLeaseEnd)
          .as("the killed poller's rows stayed in the outbox until their lease ended")
          .isTrue();
      assertThat(drained).as(report).isTrue();
      assertThat(watch.missing()).as(report).isEmpty();
      assertThat(leasedMissing).as("its leased rows arrived").isEmpty();
      assertThat(watch.rowsLeft()).as(report).isZero();
      assertThat(watch.deadLetters()).as(report).isZero();
    } finally {
      try (SqsClient sqs = aws.sqs()) {
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
      db.dropTables(tables);
    }
  }

  /** One invocation; a function error is thrown, so the schedule counts it. */
  private static LambdaRuntimeEmulator.Result invoke(LambdaRuntimeEmulator runtime, String event)
      throws Exception {
    LambdaRuntimeEmulator.Result result = runtime.invoke(event, Duration.ofSeconds(30));
    if (result.failed()) {
      throw new IllegalStateException(result.errorType() + ": " + result.body());
    }
    return result;
  }

  /**
   * Short lease and timeouts, one batch call at a time (a slower drain, easier to catch mid-way).
   */
  private static Map<String, String> environment(
      TestDatabase db, OutboxTables tables, AwsEndpoint aws, String queue) {
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, aws);
    env.put("OUTBOX_DEFAULT_DESTINATION", queue);
    env.put("OUTBOX_LEASE_SECONDS", Integer.toString(LEASE_SECONDS));
    env.put("OUTBOX_PUBLISH_TIMEOUT_MS", "3000");
    env.put("OUTBOX_SAFETY_MARGIN_MS", "1000");
    env.put("OUTBOX_BATCH_SIZE", "100");
    env.put("OUTBOX_PUBLISH_CONCURRENCY", "1");
    return env;
  }

  /**
   * Waits until the poller has published some events and holds rows under lease (at most two
   * minutes: a JVM starting on a busy machine takes its time).
   */
  private static void awaitPublishingWithRowsLeased(
      TestDatabase db,
      OutboxTables tables,
      QueueDrainer drainer,
      CompletableFuture<LambdaRuntimeEmulator.Result> invocation)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      assertThat(invocation).as("the poller's invocation ended before it was killed").isNotDone();
      if (drainer.messages() >= EVENTS / 5 && !leasedRows(db, tables).isEmpty()) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the poller published nothing within two minutes");
  }

  /** PENDING rows under a lease that has not ended, with the lease's end. */
  private static Map<String, Instant> leasedRows(TestDatabase db, OutboxTables tables)
      throws SQLException {
    Map<String, Instant> leased = new HashMap<>();
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT id, locked_until FROM "
                    + tables.messages()
                    + " WHERE status = 'PENDING' AND locked_until > CURRENT_TIMESTAMP");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        leased.put(rs.getString(1), rs.getObject(2, OffsetDateTime.class).toInstant());
      }
    }
    return leased;
  }

  /**
   * Whether every row leased to the killed poller was still in the outbox a second before the first
   * of those leases ended, the fresh poller running all the while.
   */
  private static boolean untouchedUntilLeaseEnds(
      TestDatabase db, OutboxTables tables, Map<String, Instant> leased) throws Exception {
    Instant firstEnd = leased.values().stream().min(Instant::compareTo).orElseThrow();
    Duration wait = Duration.between(Instant.now(), firstEnd.minusSeconds(1));
    assertThat(wait)
        .as("the fresh poller started before the killed one's leases ended")
        .isPositive();
    Thread.sleep(wait.toMillis());
    Set<String> present = new HashSet<>();
    try (Connection c = db.open();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT id FROM " + tables.messages() + " WHERE status = 'PENDING'");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        present.add(rs.getString(1));
      }
    }
    return present.containsAll(leased.keySet());
  }

  private static String tail(String output) {
    List<String> lines = output.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
  }
}
