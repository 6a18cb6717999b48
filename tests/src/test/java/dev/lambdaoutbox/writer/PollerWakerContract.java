package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.PollerWakeUp;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn.Answer;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn.Call;
import dev.lambdaoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * {@link PollerWaker} after real commits on a real database, with the AWS SDK's Lambda client
 * calling Lambda's {@code Invoke} API over HTTP ({@link LambdaInvokeStandIn}, which says why it is
 * a stand-in): a commit wakes the poller with the wake-up event, a rollback does not, a burst of
 * commits is coalesced (with no quiet period: one wake-up per interval; with the default one: one
 * wake-up for the burst, announcing it), and a wake-up Lambda refuses never fails, slows or undoes
 * the commit; it is counted and logged once per period. One subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PollerWakerContract {
  private static final String FUNCTION =
      "arn:aws:lambda:us-east-1:123456789012:function:outbox-poller:live";
  private static final Duration INTERVAL = Duration.ofMillis(100);

  abstract TestDatabase database();

  private TestDatabase db;
  private OutboxTables tables;
  private Jdbi jdbi;
  private OutboxWriter writer;
  private LambdaInvokeStandIn lambda;
  private LambdaClient client;

  private final Logger julLogger = Logger.getLogger(PollerWaker.class.getName());
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            warnings.add(record.getMessage());
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeAll
  void start() throws Exception {
    db = database();
    tables = db.createTables("waker");
    jdbi = db.jdbi();
    writer = OutboxWriter.builder().tables(tables).build();
    lambda = new LambdaInvokeStandIn(Answer.ACCEPTED);
    client = LambdaInvokeStandIn.client(lambda.endpoint());
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
      lambda.close();
      db.dropTables(tables);
    }
  }

  @BeforeEach
  void captureLog() {
    warnings.clear();
    julLogger.addHandler(capture);
  }

  @AfterEach
  void releaseLog() {
    julLogger.removeHandler(capture);
  }

  /** A waker with no quiet period: a wake-up per commit, at most one per interval. */
  private PollerWaker waker(Answer answer) {
    lambda.answer(answer);
    return PollerWaker.builder()
        .functionName(FUNCTION)
        .interval(INTERVAL)
        .quietPeriod(Duration.ZERO)
        .lambdaClient(client)
        .build();
  }

  /** The wake-ups sent since {@code nanos}: the build's DryRun left out. */
  private List<Call> callsSince(long nanos) {
    return lambda.calls().stream()
        .filter(c -> c.atNanos() >= nanos && !c.invocationType().equals("DryRun"))
        .toList();
  }

  private List<String> wakeUpWarnings() {
    return warnings.stream().filter(w -> w.startsWith("could not wake")).toList();
  }

  private UUID append(org.jdbi.v3.core.Handle handle) {
    OutboxEvent event =
        OutboxEvent.builder()
            .aggregateType("order")
            .aggregateId("order-" + UUID.randomUUID())
            .eventType("order.created")
            .payload("{\"n\":1}")
            .build();
    writer.append(handle, event);
    return event.id();
  }

  /** Commits one event, waking the poller after the commit; returns its id. */
  private UUID commitAndWake(PollerWaker waker) {
    return jdbi.inTransaction(
        handle -> {
          UUID id = append(handle);
          waker.afterCommit(handle);
          return id;
        });
  }

  private long rows(UUID... ids) throws Exception {
    long found = 0;
    for (UUID id : ids) {
      found +=
          WriterTestSupport.count(
              db, "SELECT COUNT(*) FROM " + tables.messages() + " WHERE id = '" + id + "'");
    }
    return found;
  }

  @Test
  void aJdbiCommit_wakesThePollerOnce_withTheWakeUpEvent_andARollbackWakesNothing()
      throws Exception {
    long start = System.nanoTime();
    try (PollerWaker waker = waker(Answer.ACCEPTED)) {
      UUID committed = commitAndWake(waker);
      waitUntil(() -> waker.counts().sent() == 1);

      assertThatThrownBy(
              () ->
                  jdbi.useTransaction(
                      handle -> {
                        append(handle);
                        waker.afterCommit(handle);
                        throw new IllegalStateException("the application gives up");
                      }))
          .hasMessage("the application gives up");
      Thread.sleep(3 * INTERVAL.toMillis());

      assertThat(rows(committed)).isEqualTo(1);
      assertThat(waker.counts()).isEqualTo(new PollerWaker.Counts(1, 1, 0));
      List<Call> calls = callsSince(start);
      assertThat(calls).hasSize(1);
      assertThat(calls.getFirst().functionName()).isEqualTo(FUNCTION);
      assertThat(calls.getFirst().invocationType()).isEqualTo("Event");
      assertThat(calls.getFirst().event()).isEqualTo(PollerWakeUp.EVENT);
    }
  }

  @Test
  void build_checksTheTargetWithOneDryRun_andSaysSoInOneLine() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    Handler all = line(lines);
    julLogger.addHandler(all);
    try {
      long start = System.nanoTime();
      try (PollerWaker waker = waker(Answer.ACCEPTED)) {
        assertThat(lambda.calls().stream().filter(c -> c.atNanos() >= start).toList())
            .extracting(Call::functionName, Call::invocationType)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(FUNCTION, "DryRun"));
        assertThat(waker.counts()).isEqualTo(new PollerWaker.Counts(0, 0, 0));
      }
      assertThat(lines).hasSize(1);
      assertThat(lines.getFirst())
          .startsWith("PollerWaker wakes " + FUNCTION + ": Lambda accepted a DryRun invocation");

      lines.clear();
      try (PollerWaker refused = waker(Answer.NOT_ALLOWED)) {
        assertThat(refused.counts().failed()).isZero();
      }
      assertThat(lines).hasSize(1);
      assertThat(lines.getFirst())
          .startsWith(
              "PollerWaker cannot wake the poller yet: Lambda refused to invoke " + FUNCTION)
          .contains("WakeUpInvokerRoleArn arn:aws:iam::123456789012:role/orders-app")
          .endsWith("committed rows wait for the poller's schedule");
    } finally {
      julLogger.removeHandler(all);
    }
  }

  private static Handler line(List<String> lines) {
    return new Handler() {
      @Override
      public void publish(LogRecord record) {
        lines.add(record.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
  }

  @Test
  void aHandleInAutoCommit_isRefused_forItHasNoCommitToWaitFor() {
    try (PollerWaker waker = waker(Answer.ACCEPTED)) {
      jdbi.useHandle(
          handle ->
              assertThatThrownBy(() -> waker.afterCommit(handle))
                  .isInstanceOf(TransactionRequiredException.class)
                  .hasMessageContaining("PollerWaker.afterCommit"));
      assertThat(waker.counts().requested()).isZero();
    }
  }

  @Test
  void aPlainJdbcCommit_thenAfterCommit_wakesThePoller() throws Exception {
    long start = System.nanoTime();
    try (PollerWaker waker = waker(Answer.ACCEPTED);
        Connection connection = db.open()) {
      connection.setAutoCommit(false);
      OutboxEvent event =
          OutboxEvent.builder()
              .aggregateType("order")
              .aggregateId("order-jdbc")
              .eventType("order.created")
              .payload("{}")
              .build();
      writer.append(connection, event);
      connection.commit();
      waker.afterCommit();

      waitUntil(() -> waker.counts().sent() == 1);
      assertThat(rows(event.id())).isEqualTo(1);
      assertThat(callsSince(start)).extracting(Call::event).containsExactly(PollerWakeUp.EVENT);
    }
  }

  @Test
  void withTheDefaultQuietPeriod_aBurstOfCommitsSendsOneWakeUp_announcingTheQuietPeriod()
      throws Exception {
    lambda.answer(Answer.ACCEPTED);
    long start = System.nanoTime();
    try (PollerWaker waker =
        PollerWaker.builder().functionName(FUNCTION).lambdaClient(client).build()) {
      List<UUID> committed = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        committed.add(commitAndWake(waker));
        Thread.sleep(50);
      }
      waitUntil(() -> waker.counts().sent() == 1);
      Thread.sleep(3 * INTERVAL.toMillis());

      assertThat(rows(committed.toArray(UUID[]::new))).isEqualTo(committed.size());
      assertThat(callsSince(start))
          .as("the run it wakes claims through the quiet period: the other commits need none")
          .extracting(Call::event)
          .containsExactly(PollerWakeUp.event(PollerWaker.DEFAULT_QUIET_PERIOD));
      assertThat(PollerWakeUp.event(PollerWaker.DEFAULT_QUIET_PERIOD)).contains("\"quietMs\":5000");
      assertThat(waker.counts()).isEqualTo(new PollerWaker.Counts(10, 1, 0));
    }
  }

  @Test
  void aBurstOfCommitsFromFourThreads_sendsAtMostOneWakeUpPerInterval_andOneAfterTheLast()
      throws Exception {
    long start = System.nanoTime();
    try (PollerWaker waker = waker(Answer.ACCEPTED)) {
      List<Callable<List<UUID>>> writers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        writers.add(
            () -> {
              List<UUID> ids = new ArrayList<>();
              long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
              while (System.nanoTime() < until) {
                ids.add(commitAndWake(waker));
              }
              return ids;
            });
      }
      List<UUID> committed =
          WriterTestSupport.runAll(writers).stream().flatMap(List::stream).toList();
      long lastCommit = System.nanoTime();
      long burstNanos = lastCommit - start;
      waitUntil(() -> callsSince(lastCommit).size() == 1 && waker.counts().sent() >= 1);
      Thread.sleep(3 * INTERVAL.toMillis());

      List<Call> calls = callsSince(start);
      assertThat(waker.counts().requested()).isEqualTo(committed.size());
      assertThat(committed.size()).as("commits").isGreaterThan(calls.size() * 2);
      // At most one wake-up per interval of the burst, and the one after the last commit: about
      // 9, never one per commit. (Each gap is the waker's own business, CoalescingWakerTest: what
      // arrives here is also spaced by the network.)
      assertThat(calls.size()).isBetween(2, (int) (burstNanos / INTERVAL.toNanos()) + 2);
      assertThat(waker.counts().sent()).isEqualTo(calls.size());
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Answer.class,
      names = {"NO_SUCH_FUNCTION", "NOT_ALLOWED", "THROTTLED"})
  void aRefusedWakeUp_neverFailsTheCommit_isCounted_andLoggedOncePerPeriod(Answer refusal)
      throws Exception {
    long start = System.nanoTime();
    try (PollerWaker waker = waker(refusal)) {
      List<UUID> committed = new ArrayList<>();
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
      long lastCommit = 0;
      while (System.nanoTime() < until) {
        Thread.sleep(20);
        lastCommit = System.nanoTime();
        committed.add(commitAndWake(waker));
      }
      long last = lastCommit;
      waitUntil(() -> !callsSince(last).isEmpty() && waker.counts().failed() >= 3);
      Thread.sleep(2 * INTERVAL.toMillis());

      assertThat(rows(committed.toArray(UUID[]::new))).isEqualTo(committed.size());
      assertThat(waker.counts().sent()).isZero();
      assertThat(waker.counts().failed()).isEqualTo(callsSince(start).size());
      List<String> failures = wakeUpWarnings();
      assertThat(failures).as("one line per minute at most").hasSize(1);
      assertThat(failures.getFirst())
          .contains("could not wake the outbox poller")
          .contains(refusal.status() + " " + refusal.errorType())
          .contains("next scheduled run");
      switch (refusal) {
        case NO_SUCH_FUNCTION -> assertThat(failures.getFirst()).contains("WakeUpFunctionArn");
        case NOT_ALLOWED ->
            assertThat(failures.getFirst())
                .contains("WakeUpInvokerRoleArn arn:aws:iam::123456789012:role/orders-app");
        default -> assertThat(failures.getFirst()).contains("throttled");
      }
    }
  }

  private static void waitUntil(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not met within 20 s");
      }
      Thread.sleep(5);
    }
  }
}
