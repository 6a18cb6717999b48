package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.lambdaoutbox.writer.PollerWaker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The waker's timing: commits coalesce into at most one wake-up per interval, the last commit is
 * always followed by one, and a slow or failing send never reaches the committing thread. The
 * sender here records calls instead of invoking Lambda: what is tested is when the waker sends, not
 * how (the Lambda sender is tested against an HTTP endpoint in the tests module).
 */
class CoalescingWakerTest {
  private static final Duration INTERVAL = Duration.ofMillis(100);

  private final Logger julLogger = Logger.getLogger(PollerWaker.class.getName());
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          warnings.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void captureLog() {
    julLogger.addHandler(capture);
  }

  @AfterEach
  void releaseLog() {
    julLogger.removeHandler(capture);
  }

  /** Records the moment of each send. */
  private static final class RecordingSender implements WakeUpSender {
    final List<Long> sentAt = new CopyOnWriteArrayList<>();
    volatile RuntimeException failure;

    @Override
    public void send() {
      sentAt.add(System.nanoTime());
      if (failure != null) {
        throw failure;
      }
    }

    @Override
    public void close() {}
  }

  @Test
  void manyCommitsFromManyThreads_sendAtMostOneWakeUpPerInterval_andOneAfterTheLast()
      throws Exception {
    RecordingSender sender = new RecordingSender();
    try (CoalescingWaker waker = new CoalescingWaker(sender, INTERVAL, Duration.ofMinutes(1))) {
      ExecutorService threads = Executors.newFixedThreadPool(4);
      long start = System.nanoTime();
      AtomicInteger commits = new AtomicInteger();
      // When the last commit was marked: its wake-up goes out after it. (Taken after the threads
      // end instead, on a loaded machine it can fall after that wake-up, which then seems missing.)
      AtomicLong lastCommitAt = new AtomicLong();
      for (int t = 0; t < 4; t++) {
        threads.submit(
            () -> {
              while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(600)) {
                lastCommitAt.accumulateAndGet(System.nanoTime(), Math::max);
                waker.afterCommit();
                commits.incrementAndGet();
                Thread.onSpinWait();
              }
            });
      }
      threads.shutdown();
      assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      long lastCommit = lastCommitAt.get();
      waitUntil(() -> !sender.sentAt.isEmpty() && sender.sentAt.getLast() >= lastCommit);
      Thread.sleep(3 * INTERVAL.toMillis()); // nothing more is wanted: nothing more is sent

      List<Long> sent = List.copyOf(sender.sentAt);
      assertThat(commits.get()).isGreaterThan(1_000);
      assertThat(waker.counts().requested()).isEqualTo(commits.get());
      assertThat(waker.counts().sent()).isEqualTo(sent.size());
      // 600 ms of commits, then the one after the last: about 7, never one per commit.
      assertThat(sent.size()).isBetween(2, 9);
      for (int i = 1; i < sent.size(); i++) {
        assertThat(sent.get(i) - sent.get(i - 1))
            .as("gap before wake-up %d", i)
            .isGreaterThanOrEqualTo(INTERVAL.toNanos());
      }
    }
  }

  @Test
  void aCommitAfterAQuietSpell_wakesAtOnce() throws Exception {
    RecordingSender sender = new RecordingSender();
    try (CoalescingWaker waker = new CoalescingWaker(sender, Duration.ofSeconds(10), minute())) {
      waker.afterCommit();
      waitUntil(() -> sender.sentAt.size() == 1);
      waker.afterCommit(); // within the 10 s interval: waits for its end
      Thread.sleep(300);
      assertThat(sender.sentAt).hasSize(1);
      assertThat(waker.counts()).isEqualTo(new PollerWaker.Counts(2, 1, 0));
    }
  }

  @Test
  void aSendThatHangs_neverHoldsUpTheCommittingThread() {
    CountDownLatch release = new CountDownLatch(1);
    WakeUpSender hanging =
        new WakeUpSender() {
          @Override
          public void send() {
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public void close() {}
        };
    try (CoalescingWaker waker = new CoalescingWaker(hanging, INTERVAL, minute())) {
      assertTimeoutPreemptively(
          Duration.ofSeconds(5),
          () -> {
            for (int i = 0; i < 10_000; i++) {
              waker.afterCommit();
            }
          });
      assertThat(waker.counts().requested()).isEqualTo(10_000);
      release.countDown();
    }
  }

  @Test
  void failingSends_areCounted_andLoggedOncePerPeriod_withTheNumberHeldBack() throws Exception {
    RecordingSender sender = new RecordingSender();
    sender.failure =
        new WakeUpFailedException("Lambda refused (429 TooManyRequestsException)", null);
    Duration period = Duration.ofMillis(400);
    try (CoalescingWaker waker = new CoalescingWaker(sender, Duration.ofMillis(20), period)) {
      long start = System.nanoTime();
      while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(300)) {
        waker.afterCommit();
        Thread.sleep(5);
      }
      waitUntil(() -> waker.counts().failed() >= 5);
      assertThat(warnings).hasSize(1);
      assertThat(warnings.getFirst())
          .contains("could not wake the outbox poller")
          .contains("429 TooManyRequestsException")
          .contains("next scheduled run");

      Thread.sleep(period.toMillis());
      waker.afterCommit();
      waitUntil(() -> warnings.size() == 2);
      assertThat(warnings.get(1)).containsPattern("\\(\\d+ more such failures since the last");
      assertThat(waker.counts().sent()).isZero();
      assertThat(waker.counts().failed()).isEqualTo(sender.sentAt.size());
    }
  }

  /**
   * As in a Lambda function, whose sandbox freezes once the handler returns: each commit's
   * afterCommit returns only after a send that began after it has ended, so no wake-up is left for
   * the frozen sender thread; commits of several threads meanwhile share one send.
   */
  @Test
  void sendingBeforeReturning_eachCommitReturnsOnlyOnceAWakeUpSentAfterItWasAnswered()
      throws Exception {
    List<long[]> sends = new CopyOnWriteArrayList<>(); // {started, ended}
    WakeUpSender slow =
        new WakeUpSender() {
          @Override
          public void send() {
            long started = System.nanoTime();
            try {
              Thread.sleep(30);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            sends.add(new long[] {started, System.nanoTime()});
          }

          @Override
          public void close() {}
        };
    try (CoalescingWaker waker =
        new CoalescingWaker(slow, Duration.ofSeconds(10), minute(), true)) {
      ExecutorService threads = Executors.newFixedThreadPool(3);
      List<long[]> commits = new CopyOnWriteArrayList<>(); // {called, returned}
      for (int t = 0; t < 3; t++) {
        threads.submit(
            () -> {
              for (int i = 0; i < 5; i++) {
                long called = System.nanoTime();
                waker.afterCommit();
                commits.add(new long[] {called, System.nanoTime()});
              }
            });
      }
      threads.shutdown();
      assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

      for (long[] commit : commits) {
        assertThat(sends)
            .as("a send began after the commit and ended before afterCommit returned")
            .anyMatch(send -> send[0] >= commit[0] && send[1] <= commit[1]);
      }
      assertThat(sends.size()).as("15 commits share sends").isLessThan(15);
      assertThat(waker.counts().requested()).isEqualTo(15);
    }
  }

  @Test
  void
      afterAnAcceptedWakeUp_theQuietPeriodsCommitsSendNone_fromTheSendsStart_andTheNextSendsAtOnce()
          throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    List<Long> sentAt = new CopyOnWriteArrayList<>();
    WakeUpSender sender =
        new WakeUpSender() {
          @Override
          public void send() {
            sentAt.add(now.get());
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30)); // the Invoke's answer takes 30 ms
          }

          @Override
          public void close() {}
        };
    Duration quiet = Duration.ofSeconds(5);
    // Sending before returning: each commit that needs a wake-up returns once it was sent.
    try (CoalescingWaker waker =
        new CoalescingWaker(sender, INTERVAL, quiet, minute(), true, now::get)) {
      waker.afterCommit();
      assertThat(sentAt).hasSize(1);
      long first = sentAt.get(0);
      for (long at = 100; at < 5_000; at += 250) {
        now.set(first + TimeUnit.MILLISECONDS.toNanos(at));
        waker.afterCommit();
      }
      now.set(first + quiet.toNanos() - 1);
      waker.afterCommit();
      assertThat(sentAt).as("the quiet period's commits sent nothing").hasSize(1);

      now.set(first + quiet.toNanos()); // counted from the send's start, not its answer
      waker.afterCommit();
      assertThat(sentAt).as("the first commit after it sends").hasSize(2);
      assertThat(waker.counts()).isEqualTo(new PollerWaker.Counts(23, 2, 0));
    }
  }

  @Test
  void aCommitWhileTheWakeUpIsInFlight_isCoveredByIt_onceLambdaAcceptsIt() throws Exception {
    CountDownLatch inFlight = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    List<Long> sentAt = new CopyOnWriteArrayList<>();
    WakeUpSender sender =
        new WakeUpSender() {
          @Override
          public void send() {
            sentAt.add(System.nanoTime());
            inFlight.countDown();
            try {
              answer.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public void close() {}
        };
    try (CoalescingWaker waker =
        new CoalescingWaker(
            sender,
            Duration.ofMillis(10),
            Duration.ofSeconds(5),
            minute(),
            false,
            System::nanoTime)) {
      waker.afterCommit();
      assertThat(inFlight.await(5, TimeUnit.SECONDS)).isTrue();
      waker.afterCommit(); // after the send began, before Lambda answered
      answer.countDown();
      Thread.sleep(200); // twenty intervals
      assertThat(sentAt).as("the woken run claims after it: no second wake-up").hasSize(1);
      assertThat(waker.counts()).isEqualTo(new PollerWaker.Counts(2, 1, 0));
    }
  }

  @Test
  void aWakeUpThatFailed_startsNoQuietPeriod() throws Exception {
    AtomicLong now = new AtomicLong();
    RecordingSender sender = new RecordingSender();
    sender.failure = new WakeUpFailedException("throttled", null);
    try (CoalescingWaker waker =
        new CoalescingWaker(sender, INTERVAL, Duration.ofSeconds(5), minute(), true, now::get)) {
      waker.afterCommit();
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
      waker.afterCommit();
      assertThat(sender.sentAt).as("each commit tried its own").hasSize(2);
      sender.failure = null;
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
      waker.afterCommit();
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
      waker.afterCommit();
      assertThat(sender.sentAt).as("the accepted one started a quiet period").hasSize(3);
    }
  }

  @Test
  void afterClose_commitsAreIgnored() throws Exception {
    RecordingSender sender = new RecordingSender();
    CoalescingWaker waker = new CoalescingWaker(sender, INTERVAL, minute());
    waker.close();
    waker.afterCommit();
    Thread.sleep(200);
    assertThat(sender.sentAt).isEmpty();
    assertThat(waker.counts().requested()).isZero();
  }

  private static Duration minute() {
    return Duration.ofMinutes(1);
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not met within 10 s");
      }
      Thread.sleep(5);
    }
  }
}
