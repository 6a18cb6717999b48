package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.DrainWatch;
import dev.lambdaoutbox.testing.Hold;
import dev.lambdaoutbox.testing.PrivateServer;
import dev.lambdaoutbox.testing.PrivateServers;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.Schedule;
import dev.lambdaoutbox.testing.SqsSendGate;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The SNS/SQS endpoint killed while the pollers publish, and started again: a private endpoint of
 * the test bed's kind (the shared one is never restarted), three pollers invoked over and over on
 * the real clock against the real store on the shared PostgreSQL, a consumer emptying the queue
 * before and after. The endpoint is killed (SIGKILL) while batch calls are in flight, stays down
 * while the pollers keep failing to reach it, and comes back.
 *
 * <p>The emulator keeps its queues and messages in memory only, which real SQS never loses, so:
 *
 * <ul>
 *   <li>the queue is created again with the same name (so the same URL) while the schedule holds
 *       its next invocations; otherwise a poller could meet a queue that does not exist yet;
 *   <li>messages the endpoint acknowledged and the consumer had not received die with it. So that
 *       few do, the pollers' SQS client holds new calls for a moment before the kill (as a slow
 *       network would; {@link SqsSendGate}) while the consumer catches up, then lets them go and
 *       the endpoint is killed while they are in flight. The same gate records what the endpoint
 *       acknowledged: an event that never arrived must have been acknowledged before the kill (lost
 *       by the emulator, counted in the output); every other committed event must arrive.
 * </ul>
 *
 * <p>In the end no row is left in the outbox and nothing was dead-lettered: an outage is transient.
 */
class PollerEndpointRestartTest {
  private static final int EVENTS = 600;
  private static final int POLLERS = 3;
  private static final Duration DRAINED_WITHIN = Duration.ofMinutes(5);

  @Test
  void endpointKilledWhilePublishing_thenBack_everyEventArrives_nothingLeft_noDeadLetters()
      throws Exception {
    long started = System.nanoTime();
    try (PrivateServer<AwsEndpoint> endpoint = PrivateServers.snsSqs();
        PollerTestBed bed =
            new PollerTestBed("eprestart", TestEndpoints.postgres(), endpoint.endpoint())) {
      String queue = bed.queue("drain");
      String queueName = queue.substring(queue.lastIndexOf('/') + 1);
      List<String> committed = CommittedEvents.write(bed.db, bed.tables, EVENTS, 20);
      PollerConfig config = ScheduledPollers.config(bed, queue);
      SqsSendGate sent = new SqsSendGate();
      SqsClient pollerSqs =
          bed.closeLater(PollerTestBed.sqs(endpoint.endpoint(), Duration.ofSeconds(3), sent));

      DrainWatch watch;
      boolean drained;
      long receivedBefore;
      long rowsLeftAtKill;
      int inFlightAtKill;
      boolean caughtUp;
      long restartedAt;
      String schedule;
      try (QueueDrainer drainer = new QueueDrainer(endpoint.endpoint(), queue, 2 * POLLERS);
          Schedule pollers = ScheduledPollers.start(bed, config, pollerSqs, POLLERS)) {
        watch = new DrainWatch(bed.db, bed.tables, drainer, committed);

        watch.awaitRowsLeftAtMost(EVENTS * 2 / 3, DRAINED_WITHIN);
        try (Hold sends = sent.hold()) {
          caughtUp = awaitConsumerCaughtUp(sent, drainer);
        }
        inFlightAtKill = awaitCallInFlight(sent);
        endpoint.kill();
        rowsLeftAtKill = watch.rowsLeft();
        receivedBefore = drainer.messages();

        Thread.sleep(3_000); // the pollers keep running into a closed port
        try (Hold held = pollers.hold()) {
          restartedAt = System.nanoTime();
          endpoint.start();
          String again = bed.sqs.createQueue(r -> r.queueName(queueName)).queueUrl();
          assertThat(again).as("the queue's URL after the restart").isEqualTo(queue);
        }

        drained = awaitDrained(watch, sent, restartedAt);
        schedule = pollers.summary();
      }

      Set<String> lostWithEndpoint = lostWithEndpoint(watch, sent, restartedAt);
      String report =
          String.format(
              "endpoint killed with %d batch call(s) in flight, %,d rows left and %,d messages"
                  + " received (the consumer %s); %,d acknowledged by the killed endpoint and lost"
                  + " with it; after %.1f s: %s. Pollers: %s",
              inFlightAtKill,
              rowsLeftAtKill,
              receivedBefore,
              caughtUp ? "had caught up" : "had not caught up in 15 s",
              lostWithEndpoint.size(),
              (System.nanoTime() - started) / 1e9,
              watch.report(),
              schedule);
      System.out.println(report);
      assertThat(rowsLeftAtKill).as("the endpoint died mid-drain").isPositive();
      assertThat(drained).as(report).isTrue();
      Set<String> missing = new HashSet<>(watch.missing());
      missing.removeAll(lostWithEndpoint);
      assertThat(missing).as(report).isEmpty();
      assertThat(watch.rowsLeft()).as(report).isZero();
      assertThat(watch.deadLetters()).as(report + "\n" + bed.logs("ERROR")).isZero();
    }
  }

  /**
   * With new calls held: waits (at most 15 s) until the calls in flight have ended and the consumer
   * has received everything the endpoint acknowledged, so that little dies with it; true when it
   * did.
   */
  private static boolean awaitConsumerCaughtUp(SqsSendGate sent, QueueDrainer drainer)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (sent.inFlight() > 0 || !drainer.missing(sent.acknowledged()).isEmpty()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** Waits (at most 30 s) until a SendMessageBatch call is in flight; returns how many are. */
  private static int awaitCallInFlight(SqsSendGate sent) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (sent.inFlight() == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no batch call was in flight for 30 s");
      }
      Thread.onSpinWait();
    }
    return sent.inFlight();
  }

  /** Drained: every event arrived or was lost with the killed endpoint, and the outbox is empty. */
  private static boolean awaitDrained(DrainWatch watch, SqsSendGate sent, long restartedAt)
      throws InterruptedException {
    long deadline = System.nanoTime() + DRAINED_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      if (watch.missing().equals(lostWithEndpoint(watch, sent, restartedAt))
          && watch.rowsLeft() == 0) {
        return true;
      }
      Thread.sleep(250);
    }
    return false;
  }

  /**
   * Committed events not received that the endpoint acknowledged before it was started again: only
   * the killed endpoint can have acknowledged those.
   */
  private static Set<String> lostWithEndpoint(
      DrainWatch watch, SqsSendGate sent, long restartedAt) {
    return sent.acknowledgedBefore(watch.missing(), restartedAt);
  }
}
