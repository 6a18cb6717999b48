package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.PollerWakeUp;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.internal.CoalescingWaker;
import dev.lambdaoutbox.writer.internal.WakeUpSender;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The waker's quiet period against the woken run's linger, raced on one hand-moved clock: the real
 * {@link CoalescingWaker} (sending before returning, so each commit's wake-up is sent before the
 * next step) and the real poller's woken runs on PostgreSQL, publishing to SQS on the test bed.
 * Nothing takes real time: a run's 100 ms between claims moves the clock, and what is due meanwhile
 * (a commit, a wake-up's run starting, from Lambda's event queue late or not) happens then, a run
 * started meanwhile running to its end inside the other's wait, as a run in a second environment
 * may. No scheduled run is ever made, so a row still in the table at the end was left for the
 * schedule.
 *
 * <p>A commit is made at many moments around the end of the quiet period and of the run's linger
 * (the last moments of each, to the millisecond), its wake-up's run starting at once or late; each
 * is published by the lingering run (no wake-up sent), or sends a wake-up of its own whose run
 * publishes it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WakeUpQuietPeriodRaceTest {
  private static final Duration QUIET = Duration.ofSeconds(1);
  private static final Duration INTERVAL = Duration.ofMillis(100);

  /** How long past its wake-up's quiet period a woken run claims (the poller's {@code Linger}). */
  private static final Duration MARGIN = Duration.ofSeconds(1);

  /** Offsets from the end of the quiet period, measured from the wake-up's send. */
  private static final long[] AROUND_QUIET_END_MS = {-500, -1, 0};

  /**
   * Offsets from the end of the woken run's linger: its start, the quiet period and the poller's
   * one-second margin.
   */
  private static final long[] AROUND_LINGER_END_MS = {-1, 0, 1};

  /** When a wake-up's run starts after its send: at once, soon, or late from the event queue. */
  private static final long[] START_DELAYS_MS = {0, 2_000};

  private PollerTestBed bed;
  private PollerConfig config;
  private Connection connection;
  private OutboxWriter writer;
  private final List<PollerHandler> environments = new ArrayList<>();
  private Timeline timeline;

  @BeforeAll
  void start() throws SQLException {
    bed = new PollerTestBed("quietrace");
    config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION",
            bed.queue("quietrace"),
            "OUTBOX_WAKE_LINGER_MS",
            "500",
            "OUTBOX_LOG_LEVEL",
            "WARN");
    connection = bed.db.open();
    connection.setAutoCommit(false);
    writer = OutboxWriter.builder().tables(bed.tables).clock(bed.clock).build();
  }

  @AfterAll
  void stop() throws Exception {
    if (connection != null) {
      connection.close();
    }
    bed.close();
  }

  @BeforeEach
  void newTimeline() {
    // The clock only moves forward, as the lease's times need: each case starts a minute on.
    timeline = new Timeline(bed.clock);
  }

  @Test
  void aCommitAtTheLastMomentsOfTheQuietPeriodOrTheLinger_isPublishedByAWokenRun_notTheSchedule()
      throws Exception {
    Map<String, Integer> outcomes = new TreeMap<>();
    try (Waker waker = new Waker("app", QUIET)) {
      for (long delayMs : START_DELAYS_MS) {
        List<Long> offsets = new ArrayList<>();
        for (long ms : AROUND_QUIET_END_MS) {
          offsets.add(ms);
        }
        for (long ms : AROUND_LINGER_END_MS) {
          offsets.add(delayMs + MARGIN.toMillis() + ms);
        }
        for (long offsetMs : offsets) {
          waker.startDelay = Duration.ofMillis(delayMs);
          bed.clock.advance(Duration.ofMinutes(1)); // past every earlier quiet period and lease
          Instant first = bed.clock.instant();
          UUID a = waker.commit();
          assertThat(waker.sends).as("the first commit after a quiet spell sends").hasSize(1);
          Instant sent = waker.sends.get(0);
          assertThat(sent).isEqualTo(first);
          UUID[] b = new UUID[1];
          timeline.at(
              sent.plus(QUIET).plusMillis(offsetMs), () -> b[0] = waker.commit()); // the race
          timeline.runAll();

          String what = "start delay " + delayMs + " ms, commit at quiet end + " + offsetMs + " ms";
          assertThat(bed.outboxRow(a)).as("%s: the first commit published", what).isNull();
          assertThat(bed.outboxRow(b[0]))
              .as(
                  "%s: the second commit published by a woken run, no schedule; runs %s",
                  what, timeline.runs)
              .isNull();
          boolean ownWakeUp = waker.sends.size() == 2;
          assertThat(ownWakeUp)
              .as("%s: a wake-up of its own exactly when made after the quiet period", what)
              .isEqualTo(offsetMs >= 0);
          assertThat(timeline.runs)
              .allMatch(r -> !r.path("stoppedBecause").asText().equals("time"));
          outcomes.merge(
              (ownWakeUp ? "its own wake-up" : "the lingering run")
                  + ", runs "
                  + timeline.runs.size(),
              1,
              Integer::sum);
          waker.sends.clear();
          timeline.runs.clear();
        }
      }
    }
    System.out.println("second commit published by: " + outcomes);
  }

  @Test
  void twoApplicationProcesses_theSecondsWakeUpArrivingWhileTheFirstsRunLingers_leaveNoCommit()
      throws Exception {
    Map<String, Integer> stops = new TreeMap<>();
    // The second process's quiet period is shorter: a run it wakes while the first's lingers finds
    // the lingering one promising longer when it arrives early enough, and stops.
    Duration secondQuiet = Duration.ofMillis(500);
    try (Waker one = new Waker("one", QUIET);
        Waker two = new Waker("two", secondQuiet)) {
      // The second process's wake-up at several moments of the first's run, its run starting at
      // once or late; then each process commits at the last moments of its quiet period.
      long[] secondAfterMs = {0, 400, 900};
      for (long delayMs : START_DELAYS_MS) {
        for (long secondMs : secondAfterMs) {
          long lingerEndMs = delayMs + secondQuiet.plus(MARGIN).toMillis();
          for (long offsetMs : new long[] {-1, 0, lingerEndMs - secondQuiet.toMillis() - 1}) {
            one.startDelay = Duration.ZERO;
            two.startDelay = Duration.ofMillis(delayMs);
            bed.clock.advance(Duration.ofMinutes(1));
            Instant first = bed.clock.instant();
            List<UUID> commits = new ArrayList<>();
            commits.add(one.commit());
            Instant second = first.plusMillis(secondMs);
            timeline.at(second, () -> commits.add(two.commit()));
            timeline.at(
                second.plus(secondQuiet).plusMillis(offsetMs), () -> commits.add(two.commit()));
            timeline.at(first.plus(QUIET).minusMillis(1), () -> commits.add(one.commit()));
            timeline.runAll();

            String what =
                "second process at +"
                    + secondMs
                    + " ms (start delay "
                    + delayMs
                    + " ms), its last commit at quiet end + "
                    + offsetMs
                    + " ms";
            assertThat(commits).hasSize(4);
            for (UUID id : commits) {
              assertThat(bed.outboxRow(id))
                  .as("%s: every commit published by a woken run; runs %s", what, timeline.runs)
                  .isNull();
            }
            for (JsonNode run : timeline.runs) {
              stops.merge(run.path("stoppedBecause").asText(), 1, Integer::sum);
            }
            one.sends.clear();
            two.sends.clear();
            timeline.runs.clear();
          }
        }
      }
    }
    System.out.println("woken runs by why they stopped: " + stops);
    assertThat(stops)
        .as("runs that found another promising longer stopped, and one lingered")
        .containsKeys("lingered", "anotherLingers");
  }

  /**
   * An application process: a real waker on the hand-moved clock, whose sends start a woken run on
   * the timeline {@link #startDelay} later.
   */
  private final class Waker implements AutoCloseable {
    final List<Instant> sends = new ArrayList<>();
    final String name;
    volatile Duration startDelay = Duration.ZERO;
    private final CoalescingWaker waker;

    Waker(String name, Duration quiet) {
      this.name = name;
      Instant origin = bed.clock.instant().minus(Duration.ofDays(1));
      WakeUpSender sender =
          new WakeUpSender() {
            @Override
            public void send() {
              Instant now = bed.clock.instant();
              sends.add(now);
              timeline.at(now.plus(startDelay), () -> timeline.wake(PollerWakeUp.event(quiet)));
            }

            @Override
            public void close() {}
          };
      this.waker =
          new CoalescingWaker(
              sender,
              INTERVAL,
              quiet,
              Duration.ofMinutes(1),
              true,
              () -> Duration.between(origin, bed.clock.instant()).toNanos());
    }

    /** Commits one event and tells the waker, as the application does; its id. */
    UUID commit() {
      OutboxEvent event = PollerTestBed.event("order.created", name).build();
      try {
        writer.append(connection, event);
        connection.commit();
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      waker.afterCommit();
      return event.id();
    }

    @Override
    public void close() {
      waker.close();
    }
  }

  /**
   * What happens when, on the hand-moved clock: woken runs wait on it ({@link #runUntil}), and what
   * is due before the end of a wait happens during it, at its time.
   */
  private final class Timeline {
    private record Event(Instant at, long seq, Runnable action) {}

    private final MutableClock clock;
    private final PriorityQueue<Event> events =
        new PriorityQueue<>(
            (x, y) -> x.at.equals(y.at) ? Long.compare(x.seq, y.seq) : x.at.compareTo(y.at));
    private long seq;
    private int depth;
    final List<JsonNode> runs = new ArrayList<>();

    Timeline(MutableClock clock) {
      this.clock = clock;
    }

    synchronized void at(Instant at, Runnable action) {
      events.add(new Event(at, seq++, action));
    }

    private synchronized Event next(Instant until) {
      Event e = events.peek();
      return e == null || (until != null && e.at.isAfter(until)) ? null : events.poll();
    }

    /** Everything on the timeline, in order, including what it adds. */
    void runAll() {
      for (Event e = next(null); e != null; e = next(null)) {
        clock.atLeast(e.at);
        e.action.run();
      }
    }

    /** A run's wait: what is due until {@code until} happens, then the clock is there. */
    void runUntil(Instant until) {
      for (Event e = next(until); e != null; e = next(until)) {
        clock.atLeast(e.at);
        e.action.run();
      }
      clock.atLeast(until);
    }

    /** A woken run from start to end, in an execution environment no other run is using. */
    void wake(String event) {
      PollerHandler handler = environment(depth++);
      try {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        handler.handleRequest(
            new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)),
            out,
            new FakeLambdaContext("outbox-poller", Duration.ofSeconds(60), clock));
        runs.add(PollerTestBed.JSON.readTree(out.toByteArray()));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      } finally {
        depth--;
      }
    }

    private PollerHandler environment(int index) {
      // Built once for the class, shared by the tests' timelines.
      while (environments.size() <= index) {
        environments.add(
            new PollerHandler(
                PollerWiring.create(
                    config,
                    bed.store(config),
                    bed.publisher(config),
                    clock,
                    new SplittableRandom(7),
                    bed.out(),
                    // The test's current timeline: the environments outlive each test's.
                    until -> timeline.runUntil(until))));
      }
      return environments.get(index);
    }
  }
}
