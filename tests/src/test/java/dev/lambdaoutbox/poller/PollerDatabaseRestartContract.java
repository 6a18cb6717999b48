package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.DrainWatch;
import dev.lambdaoutbox.testing.PrivateServer;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.Schedule;
import dev.lambdaoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The database server restarted while pollers drain, on a private server of the test bed's kind
 * (the shared one is never restarted): committed events written through {@link
 * dev.lambdaoutbox.writer.OutboxWriter}, three pollers invoked over and over on the real clock, a
 * consumer emptying the queue, and meanwhile the server shut down cleanly and started again, later
 * killed (SIGKILL to the server and all its processes) and started again, recovering from the
 * crash. Nothing is mocked: the real store on the real server, the test bed's SNS/SQS endpoint (a
 * private queue on the shared one: only the database is faulted).
 *
 * <p>In the end every committed event has arrived at least once, no row is left in the outbox and
 * nothing was dead-lettered. Duplicates are allowed (an outcome the database lost is published
 * again after the lease) and printed with the rest of the run.
 */
abstract class PollerDatabaseRestartContract {
  private static final int POLLERS = 3;
  private static final Duration DRAINED_WITHIN = Duration.ofMinutes(5);

  /** Starts the private database server. */
  abstract PrivateServer<TestDatabase> startDatabase();

  /** Events committed before the pollers start. */
  abstract int events();

  @Test
  void serverRestartedAndCrashedMidDrain_everyEventArrives_nothingLeft_noDeadLetters()
      throws Exception {
    long started = System.nanoTime();
    try (PrivateServer<TestDatabase> database = startDatabase();
        PollerTestBed bed = new PollerTestBed("dbrestart", database.endpoint())) {
      String queue = bed.queue("drain");
      List<String> committed = CommittedEvents.write(database.endpoint(), bed.tables, events(), 20);
      PollerConfig config = ScheduledPollers.config(bed, queue);

      String schedule;
      long[] receivedAtFault = new long[2];
      long[] rowsLeftAtFault = new long[2];
      DrainWatch watch;
      boolean drained;
      try (QueueDrainer drainer = new QueueDrainer(bed.aws, queue, 2 * POLLERS);
          Schedule pollers = ScheduledPollers.start(bed, config, bed.sqs, POLLERS)) {
        watch = new DrainWatch(database.endpoint(), bed.tables, drainer, committed);

        rowsLeftAtFault[0] = watch.awaitRowsLeftAtMost(events() * 3 / 4, DRAINED_WITHIN);
        receivedAtFault[0] = drainer.distinctEvents();
        database.restart(Duration.ofSeconds(3));

        rowsLeftAtFault[1] = watch.awaitRowsLeftAtMost(events() * 2 / 5, DRAINED_WITHIN);
        receivedAtFault[1] = drainer.distinctEvents();
        database.kill();
        Thread.sleep(2_000);
        database.start();

        drained = watch.awaitDrained(DRAINED_WITHIN);
        schedule = pollers.summary();
      }

      String report =
          String.format(
              "%s: restarted (clean) with %,d events received and %,d rows left, crashed and"
                  + " restarted with %,d received and %,d left; after %.1f s: %s. Pollers: %s",
              database.endpoint().name(),
              receivedAtFault[0],
              rowsLeftAtFault[0],
              receivedAtFault[1],
              rowsLeftAtFault[1],
              (System.nanoTime() - started) / 1e9,
              watch.report(),
              schedule);
      System.out.println(report);
      assertThat(rowsLeftAtFault).as("the faults came mid-drain").doesNotContain(0L);
      assertThat(drained).as(report).isTrue();
      assertThat(watch.missing()).as(report).isEmpty();
      assertThat(watch.rowsLeft()).as(report).isZero();
      assertThat(watch.deadLetters()).as(report + "\n" + bed.logs("ERROR")).isZero();
    }
  }
}
