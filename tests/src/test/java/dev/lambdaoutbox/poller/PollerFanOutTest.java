package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.poller.internal.fanout.FanOut;
import dev.lambdaoutbox.poller.internal.fanout.FanOutDecision;
import dev.lambdaoutbox.poller.internal.fanout.LambdaSelfInvoker;
import dev.lambdaoutbox.poller.internal.fanout.SelfInvoker;
import dev.lambdaoutbox.poller.internal.invocation.OutboxPoller;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.config.SharedVariables;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn.Answer;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * Scale-out: a scheduled invocation that finds more due rows than it can publish before its timeout
 * starts further invocations of its own function, which drain the backlog beside it and start no
 * others. The pollers, the store and the broker are real (PostgreSQL, SQS on the test bed). <b>The
 * Lambda service is a fake</b> ({@link FakeLambda}): nothing here can run Lambda's asynchronous
 * {@code Invoke}, so the fake takes each call the poller's {@code LambdaSelfInvoker} makes through
 * the SDK's Lambda client ({@link LambdaInvokeStandIn}, Lambda's {@code Invoke} API on loopback)
 * and runs it as Lambda would, through the handler's entry point in a fresh "container" (a handler
 * of its own, with its own connection) on a thread of its own; or refuses it, as a throttled Lambda
 * does.
 *
 * <p>The rate one invocation is assumed to publish is set low (2 events/s, so one 60 s invocation
 * is taken to manage about 100 rows): the decision is under test, not the speed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerFanOutTest {
  private static final String ARN = "arn:aws:lambda:us-east-1:123456789012:function:outbox-poller";
  private static final double SLOW_RATE = 2;

  private PollerTestBed bed;
  private String queue;
  private LambdaInvokeStandIn lambdaApi;
  private LambdaClient lambdaClient;

  @BeforeAll
  void start() throws Exception {
    bed = new PollerTestBed("fanout");
    queue = bed.queue("fanout");
    lambdaApi = new LambdaInvokeStandIn(Answer.ACCEPTED);
    lambdaClient = LambdaInvokeStandIn.client(lambdaApi.endpoint());
  }

  @AfterAll
  void stop() throws Exception {
    lambdaClient.close();
    lambdaApi.close();
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @Test
  void backlogBeyondOneInvocation_startsMore_whoDrainItBesideIt_andStartNoOthers()
      throws Exception {
    List<UUID> ids = appendRows(300);
    FakeLambda lambda = new FakeLambda(false);
    PollerConfig config = config("4");

    JsonNode scheduled = lambda.scheduledInvocation(config);
    lambda.awaitAll();

    // 300 rows at ~100 per invocation: three invocations, this one and two more.
    assertThat(lambda.calls).hasSize(2).allSatisfy(c -> assertThat(c.arn()).isEqualTo(ARN));
    assertThat(lambda.calls)
        .allSatisfy(c -> assertThat(FanOut.isFanOutEvent(c.payload().getBytes())).isTrue());
    assertThat(scheduled.get("startedPollers").asInt()).isEqualTo(2);
    assertThat(lambda.fanOutSummaries)
        .hasSize(2)
        .allSatisfy(
            s -> {
              assertThat(s.get("fanOut").asBoolean()).isTrue();
              assertThat(s.get("stoppedBecause").asText()).isEqualTo("drained");
              assertThat(s.has("startedPollers")).isFalse();
            });
    int published =
        scheduled.get("published").asInt()
            + lambda.fanOutSummaries.stream().mapToInt(s -> s.get("published").asInt()).sum();
    assertThat(published).isEqualTo(300);
    assertAllDelivered(ids);
  }

  /**
   * A wake-up sent without its mark, or an operator's {@code {}}: the same backlog a scheduled run
   * fans out for is drained by the one invocation alone.
   */
  @ParameterizedTest
  @ValueSource(strings = {"{}", "{\"outboxWakeup\":true}", "{\"source\":\"aws.events\"}"})
  void aPayloadThatIsNeitherTheSchedulesNorAWakeUp_startsNoOthers(String payload) throws Exception {
    List<UUID> ids = appendRows(300);
    PollerConfig config = config("4");
    FakeLambda lambda = new FakeLambda(false);
    lambda.config = config;

    JsonNode run = lambda.container(config).invoke(payload);
    lambda.awaitAll();

    assertThat(lambda.calls).isEmpty();
    assertThat(run.has("startedPollers")).isFalse();
    assertThat(run.get("published").asInt()).isEqualTo(300);
    assertAllDelivered(ids);
  }

  @Test
  void atMostMaxConcurrentPollersInAll() throws Exception {
    appendRows(300);
    FakeLambda lambda = new FakeLambda(false);

    JsonNode scheduled = lambda.scheduledInvocation(config("2"));
    lambda.awaitAll();

    assertThat(lambda.calls).hasSize(1);
    assertThat(scheduled.get("startedPollers").asInt()).isEqualTo(1);
    assertThat(bed.count(bed.tables.messages())).isZero();
    bed.receive(queue, 300);
  }

  @Test
  void backlogOneInvocationManages_startsNone() throws Exception {
    appendRows(60);
    FakeLambda lambda = new FakeLambda(false);

    JsonNode scheduled = lambda.scheduledInvocation(config("4"));

    assertThat(lambda.calls).isEmpty();
    assertThat(scheduled.has("startedPollers")).isFalse();
    assertThat(scheduled.get("published").asInt()).isEqualTo(60);
    bed.receive(queue, 60);
  }

  @Test
  void maxConcurrentPollersOne_theDefault_neverStartsAny() throws Exception {
    appendRows(300);
    FakeLambda lambda = new FakeLambda(false);

    JsonNode scheduled =
        lambda.scheduledInvocation(bed.config("OUTBOX_DEFAULT_DESTINATION", queue));

    assertThat(lambda.calls).isEmpty();
    assertThat(scheduled.get("published").asInt()).isEqualTo(300);
    bed.receive(queue, 300);
  }

  @Test
  void lambdaRefusingTheInvoke_isLogged_andTheInvocationDrainsAlone() throws Exception {
    appendRows(300);
    FakeLambda lambda = new FakeLambda(true);

    JsonNode scheduled = lambda.scheduledInvocation(config("4"));

    assertThat(lambda.calls).hasSize(1); // refused once: it tries no more
    assertThat(scheduled.has("startedPollers")).isFalse();
    assertThat(scheduled.get("published").asInt()).isEqualTo(300);
    assertThat(bed.outputLines())
        .anySatisfy(
            line ->
                assertThat(line.path("message").asText())
                    .contains("could not start another invocation"));
    bed.receive(queue, 300);
  }

  @Test
  void anInvocationAFanOutStarted_drainsAndStops_despiteAPollInterval() throws Exception {
    appendRows(30);
    FakeLambda lambda = new FakeLambda(false);
    PollerConfig config = config("4", PollerVariables.POLL_INTERVAL_MS.name(), "5000");

    long started = System.nanoTime();
    JsonNode summary = lambda.container(config).invoke(FanOut.payload("req-1"));

    assertThat(summary.get("fanOut").asBoolean()).isTrue();
    assertThat(summary.get("stoppedBecause").asText()).isEqualTo("drained");
    assertThat(summary.get("published").asInt()).isEqualTo(30);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    assertThat(lambda.calls).isEmpty();
    bed.receive(queue, 30);
  }

  @Test
  void orderedBacklogOnManyAggregates_startsMore_whoDrainItTogether() throws Exception {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      ids.addAll(appendRows(150)); // 150 aggregates, two events each
    }
    FakeLambda lambda = new FakeLambda(false);

    JsonNode scheduled =
        lambda.scheduledInvocation(config("4", SharedVariables.ORDERING.name(), "aggregate"));
    lambda.awaitAll();

    // 300 due rows of aggregates that are not parked, at ~100 per invocation: two more.
    assertThat(lambda.calls).hasSize(2);
    assertThat(scheduled.get("startedPollers").asInt()).isEqualTo(2);
    assertThat(lambda.fanOutSummaries)
        .hasSize(2)
        .allSatisfy(s -> assertThat(s.get("stoppedBecause").asText()).isEqualTo("drained"));
    assertAllDelivered(ids);
  }

  @Test
  void orderedBacklogBehindAParkedHead_startsNoOthers() throws Exception {
    PollerConfig config =
        bed.config(
            PollerVariables.ROUTES.name(),
            "{\"order.created\":\"" + queue + "\"}",
            PollerVariables.BATCH_SIZE.name(),
            "50",
            PollerVariables.MAX_CONCURRENT_POLLERS.name(),
            "4",
            SharedVariables.ORDERING.name(),
            "aggregate");
    FakeLambda lambda = new FakeLambda(false);
    // No route for the head's type: it is dead-lettered (NO_DESTINATION) and parks its aggregate.
    bed.append(event("order.unrouted", "o-parked").build());
    assertThat(lambda.scheduledInvocation(config).get("deadLettered").asInt()).isEqualTo(1);
    // Due, but behind the parked head.
    OutboxEvent[] behind = new OutboxEvent[300];
    for (int i = 0; i < behind.length; i++) {
      behind[i] = event("order.created", "o-parked").build();
    }
    bed.append(behind);

    JsonNode scheduled = lambda.scheduledInvocation(config);
    lambda.awaitAll();

    // 300 rows nobody may claim: no help is started for them, run after run.
    assertThat(lambda.calls).isEmpty();
    assertThat(scheduled.has("startedPollers")).isFalse();
    assertThat(scheduled.get("published").asInt()).isZero();
    assertThat(bed.count(bed.tables.messages())).isEqualTo(300);
  }

  // ---- helpers

  /** The outbox is empty, and the queue got each of {@code ids}. */
  private void assertAllDelivered(List<UUID> ids) {
    assertThat(bed.count(bed.tables.messages())).isZero();
    assertThat(bed.receive(queue, ids.size()))
        .extracting(m -> UUID.fromString(attribute(m, "eventId")))
        .containsExactlyInAnyOrderElementsOf(ids);
  }

  private PollerConfig config(String maxConcurrentPollers, String... more) {
    List<String> env =
        new ArrayList<>(
            List.of(
                "OUTBOX_DEFAULT_DESTINATION",
                queue,
                PollerVariables.BATCH_SIZE.name(),
                "50",
                PollerVariables.MAX_CONCURRENT_POLLERS.name(),
                maxConcurrentPollers));
    env.addAll(List.of(more));
    return bed.config(env.toArray(String[]::new));
  }

  private List<UUID> appendRows(int n) {
    OutboxEvent[] events = new OutboxEvent[n];
    for (int i = 0; i < n; i++) {
      events[i] = event("order.created", "o-" + i).build();
    }
    return bed.append(events);
  }

  /**
   * A fake of the Lambda service, the one part here that is not real: each asynchronous {@code
   * Invoke} goes through the SDK's client to {@link LambdaInvokeStandIn}, which accepts it (and
   * this fake then runs it through the entry point of a fresh handler on a thread, as Lambda runs
   * an event in a container of its own) or, with {@code refuse}, answers as a throttled {@code
   * Invoke}.
   */
  private final class FakeLambda implements SelfInvoker {
    record Call(String arn, String payload) {}

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<JsonNode> fanOutSummaries = new CopyOnWriteArrayList<>();
    private final List<Thread> running = new CopyOnWriteArrayList<>();
    private final boolean refuse;
    private PollerConfig config;

    FakeLambda(boolean refuse) {
      this.refuse = refuse;
    }

    @Override
    public void invokeAsync(String functionArn, String payload) {
      calls.add(new Call(functionArn, payload));
      lambdaApi.answer(refuse ? Answer.THROTTLED : Answer.ACCEPTED);
      new LambdaSelfInvoker(() -> lambdaClient).invokeAsync(functionArn, payload);
      Container container = container(config);
      running.add(Thread.ofPlatform().start(() -> fanOutSummaries.add(container.invoke(payload))));
    }

    /** A scheduled invocation in a container of its own. */
    JsonNode scheduledInvocation(PollerConfig config) {
      this.config = config;
      return container(config)
          .invoke("{\"detail-type\":\"Scheduled Event\",\"source\":\"aws.events\",\"detail\":{}}");
    }

    void awaitAll() throws InterruptedException {
      for (Thread t : running) {
        t.join(Duration.ofMinutes(2));
      }
    }

    /** A handler as Lambda builds it, with this fake as its Lambda client. */
    Container container(PollerConfig config) {
      Clock clock = Clock.systemUTC();
      OutboxStore store = bed.store(config);
      var publisher = bed.publisher(config);
      JsonLogger log =
          new JsonLogger(
              config.telemetry().serviceName(),
              PollerHandler.class,
              config.telemetry().logLevel(),
              bed.out(),
              clock);
      EmfMetrics metrics =
          new EmfMetrics(
              config.telemetry().metricsNamespace(),
              config.telemetry().serviceName(),
              bed.out(),
              clock);
      OutboxPoller poller =
          PollerWiring.poller(
              config, store, publisher, clock, new SplittableRandom(1), log, metrics);
      OutboxPoller fanOutPoller =
          PollerWiring.poller(
              config.withPollInterval(Duration.ZERO),
              store,
              publisher,
              clock,
              new SplittableRandom(2),
              log,
              metrics);
      FanOut fanOut =
          new FanOut(
              config,
              store,
              this,
              new FanOutDecision(
                  config.publishing().maxConcurrentPollers(),
                  config.claims().batchSize(),
                  SLOW_RATE),
              clock,
              log);
      return new Container(new PollerHandler(poller, fanOutPoller, fanOut));
    }
  }

  /** One Lambda container: its handler, invoked through Lambda's entry point. */
  private record Container(PollerHandler handler) {
    JsonNode invoke(String event) {
      try {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FakeLambdaContext context = new FakeLambdaContext("outbox-poller", Duration.ofSeconds(60));
        handler.handleRequest(
            new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)), out, context);
        return PollerTestBed.JSON.readTree(out.toByteArray());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
