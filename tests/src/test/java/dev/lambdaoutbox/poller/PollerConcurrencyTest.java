package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Four pollers at once over one outbox publish every row exactly once. The publisher only counts
 * (by event id), so the test measures the claiming over the real store, not the broker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerConcurrencyTest {
  private static final int ROWS = 20_000;
  private static final int POLLERS = 4;

  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("parallel");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void fourPollersInParallel_publishEachOfTwentyThousandRowsExactlyOnce() throws Exception {
    bed.reset();
    Set<UUID> written = new HashSet<>();
    OutboxWriter writer = OutboxWriter.builder().tables(bed.tables).clock(bed.clock).build();
    for (int tx = 0; tx < ROWS / 1000; tx++) {
      List<OutboxEvent> events = new ArrayList<>(1000);
      for (int i = 0; i < 1000; i++) {
        events.add(event("order.created", "o-" + (tx * 1000 + i)).build());
      }
      written.addAll(bed.append(writer, events));
    }
    Map<UUID, AtomicInteger> published = new ConcurrentHashMap<>();
    MessagePublisher counting =
        new MessagePublisher() {
          @Override
          public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
            List<Delivery> sent = new ArrayList<>(messages.size());
            for (OutboundMessage m : messages) {
              published.computeIfAbsent(m.id(), id -> new AtomicInteger()).incrementAndGet();
              sent.add(new Delivery.Sent(m.id()));
            }
            return sent;
          }
        };
    PollerConfig config =
        bed.config(
            "OUTBOX_DEFAULT_DESTINATION",
            "https://sqs.us-east-1.amazonaws.com/123456789012/counted",
            "OUTBOX_BATCH_SIZE",
            "100");
    List<PollerHandler> handlers = new ArrayList<>();
    for (int p = 0; p < POLLERS; p++) {
      handlers.add(bed.handler(config, bed.store(config), counting));
    }

    ExecutorService pool = Executors.newFixedThreadPool(POLLERS);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<PollSummary>> runs = new ArrayList<>();
    try {
      for (PollerHandler handler : handlers) {
        runs.add(
            pool.submit(
                () -> {
                  go.await();
                  return bed.invoke(handler);
                }));
      }
      go.countDown();
      List<PollSummary> summaries = new ArrayList<>();
      for (Future<PollSummary> run : runs) {
        summaries.add(run.get());
      }

      assertThat(published.keySet()).isEqualTo(written);
      assertThat(published.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
      assertThat(summaries.stream().mapToInt(PollSummary::published).sum()).isEqualTo(ROWS);
      assertThat(summaries.stream().mapToInt(PollSummary::claimed).sum()).isEqualTo(ROWS);
      assertThat(summaries).allSatisfy(s -> assertThat(s.claimed()).isPositive());
      assertThat(bed.count(bed.tables.messages())).isZero();
    } finally {
      pool.shutdownNow();
    }
  }
}
