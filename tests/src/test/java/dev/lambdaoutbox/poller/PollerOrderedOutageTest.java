package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.byAggregate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * With {@code OUTBOX_ORDERING=aggregate}, one destination down for an hour as a one-minute schedule
 * lives it, while events keep coming for its aggregates and for others routed to a healthy queue.
 * It is probed every ten minutes at most ({@code OUTBOX_PROBE_INTERVAL_MAX_MS}), so the events
 * written for its aggregates between probes are due before their deferred heads; with claims of ten
 * (a window of 40 rows) they outnumber what one claim looks at within minutes. Throughout, the
 * other aggregates' events are published by the invocation that follows their commit, and nothing
 * is dead-lettered or spends a retry. Once the destination is back, its aggregates drain, each in
 * commit order.
 *
 * <p>The outage is the real SQS client with every entry for the down queue failing as an internal
 * error ({@link EntryRejectingSqsClient}): a mock only because the local endpoint cannot fail one
 * queue and not another.
 */
class PollerOrderedOutageTest {
  private static final Duration SCHEDULE = Duration.ofMinutes(1);
  private static final Duration OUTAGE = Duration.ofHours(1);
  private static final int DOWN_AGGREGATES = 5;
  private static final int DOWN_EVENTS_PER_MINUTE = 2;
  private static final int UP_AGGREGATES = 3;

  @ParameterizedTest(name = "{index}")
  @MethodSource("dev.lambdaoutbox.poller.PollerTestBed#bothDatabases")
  void aDestinationDownForAnHour_holdsUpOnlyItsOwnAggregates_whichThenDrainInOrder(
      Supplier<TestDatabase> database) throws Exception {
    try (PollerTestBed bed = new PollerTestBed("orderedoutage", database.get())) {
      String up = bed.queue("up");
      String down = bed.queue("down");
      Set<String> forDown = ConcurrentHashMap.newKeySet();
      AtomicBoolean outage = new AtomicBoolean(true);
      EntryRejectingSqsClient sqs =
          new EntryRejectingSqsClient(
              bed.sqs, e -> outage.get() && forDown.contains(e.id()), "InternalError", false);
      PollerConfig config =
          bed.config(
              "OUTBOX_ORDERING", "aggregate",
              "OUTBOX_BATCH_SIZE", "10",
              "OUTBOX_PROBE_INTERVAL_MAX_MS", "600000",
              "OUTBOX_ROUTES", "{\"up.changed\":\"" + up + "\",\"down.changed\":\"" + down + "\"}");
      PollerHandler handler =
          bed.handler(config, bed.store(config), bed.publisher(config, bed.sns, sqs));
      Map<String, List<UUID>> written = new LinkedHashMap<>();
      Instant start = bed.clock.instant();

      for (Duration t = Duration.ZERO; t.compareTo(OUTAGE) < 0; t = t.plus(SCHEDULE)) {
        bed.clock.set(start.plus(t));
        for (int n = 0; n < DOWN_EVENTS_PER_MINUTE; n++) {
          for (int a = 0; a < DOWN_AGGREGATES; a++) {
            forDown.add(write(bed, "down", a, written).toString());
          }
        }
        for (int a = 0; a < UP_AGGREGATES; a++) {
          write(bed, "up", a, written);
        }

        PollSummary summary = bed.invoke(handler);

        String when = "after the invocation at +" + t.toMinutes() + " min";
        assertThat(pending(bed, "up-")).as(when).isZero();
        assertThat(summary.deadLettered() + summary.retried()).as(when).isZero();
      }
      int downEvents = (int) (OUTAGE.toMinutes() * DOWN_EVENTS_PER_MINUTE * DOWN_AGGREGATES);
      assertThat(pending(bed, "down-")).isEqualTo(downEvents);
      assertThat(bed.count(bed.tables.deadLetters())).isZero();

      outage.set(false);
      Instant back = start.plus(OUTAGE);
      for (int i = 0; i < 30 && bed.count(bed.tables.messages()) > 0; i++) {
        bed.clock.set(back.plus(SCHEDULE.multipliedBy(i)));
        bed.invoke(handler);
      }

      assertThat(bed.count(bed.tables.messages())).isZero();
      assertThat(bed.count(bed.tables.deadLetters())).isZero();
      Map<String, List<UUID>> arrived = byAggregate(bed.receive(down, downEvents));
      arrived.putAll(byAggregate(bed.receive(up, (int) OUTAGE.toMinutes() * UP_AGGREGATES)));
      assertThat(arrived).isEqualTo(written);
    }
  }

  /** Commits one event of aggregate {@code prefix-a}, routed by its type; its id. */
  private static UUID write(
      PollerTestBed bed, String prefix, int a, Map<String, List<UUID>> written) {
    String aggregateId = prefix + "-" + a;
    UUID id =
        bed.append(
                OutboxEvent.builder()
                    .aggregateType("order")
                    .aggregateId(aggregateId)
                    .eventType(prefix + ".changed")
                    .payload("{\"aggregate\":\"" + aggregateId + "\"}")
                    .build())
            .get(0);
    written.computeIfAbsent(aggregateId, k -> new ArrayList<>()).add(id);
    return id;
  }

  /** The outbox rows of aggregates whose id starts with {@code prefix}. */
  private static long pending(PollerTestBed bed, String prefix) {
    return bed.rows(bed.tables.messages()).stream()
        .filter(r -> String.valueOf(r.get("aggregate_id")).startsWith(prefix))
        .count();
  }
}
