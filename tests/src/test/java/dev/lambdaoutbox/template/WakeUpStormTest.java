package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaInvokeStandIn;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.TcpForwarder;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A wake-up storm against the stack as the template deploys it with wake-ups on (and nothing else
 * set): {@link #WAKERS} application processes, each committing {@link #COMMITS_PER_SECOND} events a
 * second and waking the poller after each through its own {@link PollerWaker}, the packaged poller
 * in the runtime emulator with the concurrency the template reserves. The runs never exceed it, nor
 * the poller's connections to the database two a run, and every event is published.
 */
class WakeUpStormTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final String ROLE = "arn:aws:iam::123456789012:role/orders-app";
  private static final int WAKERS = 50;
  private static final int COMMITS_PER_SECOND = 10;
  private static final Duration STORM = Duration.ofSeconds(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void fiftyWakersAtTenCommitsASecond_keepTheRunsAtTheReservedConcurrency_twoConnectionsARun()
      throws Exception {
    Object reserved =
        TEMPLATE
            .resolve(
                SamTemplate.requiredParameters("WakeUpInvokerRoleArn", ROLE), "storm", Map.of())
            .properties("PollerFunction")
            .get("ReservedConcurrentExecutions");
    assertThat(reserved).as("the poller's reserved concurrency with wake-ups on").isNotNull();
    int concurrency = Integer.parseInt(String.valueOf(reserved));

    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = db.createTables("storm");
    AwsEndpoint aws = TestEndpoints.aws();
    String queue;
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName("storm-" + UUID.randomUUID())).queueUrl();
    }
    URI dbAddress = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    List<PollerWaker> wakers = new ArrayList<>();
    ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
    ScheduledExecutorService writers = Executors.newScheduledThreadPool(16);
    try (TcpForwarder dbProxy = TcpForwarder.to(dbAddress);
        QueueDrainer drainer = new QueueDrainer(aws, queue, 2);
        LambdaRuntimeEmulator poller = LambdaRuntimeEmulator.of(OutboxFunction.POLLER);
        LambdaClient lambda = LambdaInvokeStandIn.client(URI.create(poller.invokeEndpoint()))) {
      SamTemplate.Resolved stack =
          TEMPLATE.resolve(
              SamTemplate.requiredParameters(
                  "WakeUpInvokerRoleArn",
                  ROLE,
                  "JdbcUrl",
                  db.jdbcUrl().replace(dbAddress.getAuthority(), dbProxy.hostAndPort()),
                  "TablePrefix",
                  tables.prefix(),
                  "DefaultDestination",
                  queue),
              "storm",
              Map.of());
      Map<String, String> env = new LinkedHashMap<>(stack.environment("PollerFunction"));
      env.putAll(aws.environment());
      env.remove("OUTBOX_DB_SECRET_ARN");
      env.put("OUTBOX_DB_USER", db.user());
      env.put("OUTBOX_DB_PASSWORD", db.password());
      env.put("OUTBOX_LOG_LEVEL", "WARN");
      poller.scaleOnDemand(
          e ->
              PackagedFunction.start(
                  OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, e),
          concurrency);

      Jdbi jdbi = db.jdbi();
      OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
      for (int i = 0; i < WAKERS; i++) {
        wakers.add(
            PollerWaker.builder().functionName("outbox-poller:live").lambdaClient(lambda).build());
      }
      long period = TimeUnit.SECONDS.toNanos(1) / COMMITS_PER_SECOND;
      // A connection per writer thread, as an application's pool keeps them.
      List<Handle> handles = new CopyOnWriteArrayList<>();
      ThreadLocal<Handle> handle =
          ThreadLocal.withInitial(
              () -> {
                Handle h = jdbi.open();
                handles.add(h);
                return h;
              });
      for (PollerWaker waker : wakers) {
        writers.scheduleAtFixedRate(
            () ->
                handle
                    .get()
                    .useTransaction(
                        h -> {
                          OutboxEvent event =
                              OutboxEvent.builder()
                                  .aggregateType("order")
                                  .aggregateId("order-" + UUID.randomUUID())
                                  .eventType("order.created")
                                  .payload("{}")
                                  .build();
                          writer.append(h, event);
                          waker.afterCommit(h);
                          ids.add(event.id().toString());
                        }),
            ThreadLocalRandom.current().nextLong(period),
            period,
            TimeUnit.NANOSECONDS);
      }
      Thread.sleep(STORM.toMillis());
      writers.shutdown();
      assertThat(writers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      handles.forEach(Handle::close);

      long stormEnd = System.nanoTime();
      boolean delivered = drainer.awaitEvents(List.copyOf(ids), Duration.ofSeconds(60));
      long publishedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stormEnd);
      // The wake-ups still queued behind the reserved concurrency: each finds nothing and stops.
      List<CompletableFuture<LambdaRuntimeEmulator.Result>> runs = poller.invokedByFunctions();
      long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (System.nanoTime() < drainUntil && !runs.stream().allMatch(CompletableFuture::isDone)) {
        Thread.sleep(100);
      }
      Map<String, Long> byReason =
          runs.stream()
              .filter(CompletableFuture::isDone)
              .map(f -> stoppedBecause(f.join()))
              .collect(Collectors.groupingBy(r -> r, TreeMap::new, Collectors.counting()));
      runs.stream()
          .filter(f -> f.isDone() && !"drained".equals(stoppedBecause(f.join())))
          .forEach(f -> System.out.println("a run that found rows: " + f.join().body()));
      System.out.printf(
          "%d wakers, %d commits in %d s (%d wanted), %d wake-ups sent; last event published"
              + " %d ms after the storm; runs by why they stopped %s, %d still queued %d s after;"
              + " most runs at once %d (reserved %d), most poller connections to the database at"
              + " once %d%n",
          WAKERS,
          ids.size(),
          STORM.toSeconds(),
          WAKERS * COMMITS_PER_SECOND * STORM.toSeconds(),
          wakers.stream().mapToLong(w -> w.counts().sent()).sum(),
          publishedMs,
          byReason,
          runs.stream().filter(f -> !f.isDone()).count(),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - stormEnd),
          poller.mostRunningAtOnce(),
          concurrency,
          dbProxy.mostConnectionsAtOnce());
      assertThat(ids.size()).as("commits").isGreaterThan(WAKERS * (int) STORM.toSeconds());
      assertThat(delivered).as("every commit published; missing %s", drainer.missing(ids)).isTrue();
      assertThat(poller.mostRunningAtOnce()).isBetween(1, concurrency);
      assertThat(dbProxy.mostConnectionsAtOnce()).isBetween(1, 2 * concurrency);
    } finally {
      writers.shutdownNow();
      wakers.forEach(PollerWaker::close);
      try (SqsClient sqs = aws.sqs()) {
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
      db.dropTables(tables);
    }
  }

  private static String stoppedBecause(LambdaRuntimeEmulator.Result result) {
    if (result.failed()) {
      return result.errorType();
    }
    try {
      return JSON.readTree(result.body()).path("stoppedBecause").asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
