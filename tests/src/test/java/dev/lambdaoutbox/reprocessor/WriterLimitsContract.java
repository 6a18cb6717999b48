package dev.lambdaoutbox.reprocessor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.EventRules;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.core.OutboxMessageAttributes;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.poller.PollSummary;
import dev.lambdaoutbox.reprocessor.internal.action.DeadLetterActions;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.testing.Backend;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Whatever the writer accepts, every table holds and every step carries, byte for byte, on each
 * store: events at each limit the writer enforces (a message of exactly 256 KiB as SNS/SQS count
 * it, filled by the payload (of mixed characters, or of four-byte characters only), or by five
 * headers with the longest names (255 characters) and values whose JSON takes twice their bytes;
 * aggregate type, aggregate id, event type and idempotency key of 255 characters of three bytes
 * each; a destination of 2,048 characters) are appended, published, then written again and
 * dead-lettered (unrouted, or waiting for a queue that does not exist and dead-lettered by an
 * operator), listed and replayed, and arrive as written. Run over each way the functions reach the
 * tables by a small subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WriterLimitsContract {
  /** Three UTF-8 bytes, one character everywhere (Java, PostgreSQL, MySQL's utf8mb4). */
  private static final String WIDE = "€";

  private final List<AutoCloseable> resources = new ArrayList<>();
  private TestDatabase db;
  private OutboxTables tables;
  private SqsClient sqs;
  private String prefix;
  private String queue;
  private String replayQueue;
  private final List<String> queues = new ArrayList<>();

  /** How the functions reach the tables. */
  abstract Backend backend();

  @BeforeAll
  void createTablesAndQueues() {
    db = backend().database();
    tables = db.createTables("lim");
    sqs = TestEndpoints.aws().sqs();
    prefix = "lim-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    queue = createQueue(prefix + "-default");
    replayQueue = createQueue(prefix + "-replayed");
  }

  @AfterAll
  void dropTablesAndQueues() {
    Backend.close(resources);
    db.dropTables(tables);
    queues.forEach(q -> sqs.deleteQueue(r -> r.queueUrl(q)));
    sqs.close();
  }

  @Test
  final void
      eventsAtEveryLimitOfTheWriter_areStored_published_deadLettered_listed_andReplayed_whole() {
    // 1. Appended and published: each arrives as written.
    String far = createQueue(prefix + "-far");
    List<OutboxEvent> first = atTheLimits("a", longestUrlOf(far));
    append(first);
    try (PollerRunner poller = poller(Map.of("OUTBOX_DEFAULT_DESTINATION", queue))) {
      // Over the Data API a claim brings back what fits in one result, so this may take runs.
      assertThat(publishedWithin(poller, Duration.ofSeconds(20))).isEqualTo(first.size());
      assertArrived(poller.receive(queue, first.size() - 1), first.subList(1, first.size()));
      assertArrived(poller.receive(far, 1), first.subList(0, 1));
    }

    // 2. Written again and dead-lettered: unrouted ones by the poller, the one whose queue does
    // not exist (yet) by an operator once it waits for it.
    String farAway = longestUrlOf(queueUrlOf(prefix + "-far-later"));
    List<OutboxEvent> again = atTheLimits("b", farAway);
    append(again);
    ReprocessorHarness reprocessor =
        new ReprocessorHarness(
            db,
            tables,
            100,
            backend().executor(tables, resources),
            ReprocessorHarness.anyDestination(),
            Ordering.NONE);
    resources.add(reprocessor);
    try (PollerRunner poller = poller(Map.of())) {
      int deadLetteredRows = 0;
      int deferredRows = 0;
      // The one waiting for its queue may be claimed, and deferred, again meanwhile: over the Data
      // API the unrouted ones take several runs.
      while (deadLetteredRows < again.size() - 1 || deferredRows == 0) {
        PollSummary run = poller.poll();
        assertThat(run.claimed()).as("every row is claimed in the end").isPositive();
        deadLetteredRows += run.deadLettered();
        deferredRows += run.deferred();
      }
      assertThat(deadLetteredRows).as("no destination").isEqualTo(again.size() - 1);
      assertThat(deferredRows).as("its queue does not exist").isPositive();
    }
    JsonNode deadLettered =
        reprocessor.invoke(
            "{\"action\":\"deadLetter\",\"waitingFor\":\"" + farAway + "\",\"dryRun\":false}");
    assertThat(deadLettered.path("deadLettered")).hasSize(1);

    // 3. Listed: every column as written, the payload cut to its preview. Over the Data API a
    // page holds what fits in one result: the cursor goes on.
    Map<String, JsonNode> listed = new HashMap<>();
    String cursor = null;
    do {
      JsonNode page =
          reprocessor.invoke(
              "{\"action\":\"list\",\"limit\":1000"
                  + (cursor == null ? "" : ",\"cursor\":\"" + cursor + "\"")
                  + "}");
      page.path("deadLetters").forEach(d -> listed.put(d.path("id").asText(), d));
      cursor = page.path("nextCursor").isNull() ? null : page.path("nextCursor").asText();
    } while (cursor != null);
    assertThat(listed).hasSize(again.size());
    for (OutboxEvent e : again) {
      JsonNode d = listed.get(e.id().toString());
      assertThat(d).as(e.toString()).isNotNull();
      assertThat(d.path("aggregateType").asText()).isEqualTo(e.aggregateType());
      assertThat(d.path("aggregateId").asText()).isEqualTo(e.aggregateId());
      assertThat(d.path("eventType").asText()).isEqualTo(e.eventType());
      assertThat(d.path("idempotencyKey").asText()).isEqualTo(e.idempotencyKey().orElseThrow());
      assertThat(d.path("destination").isNull() ? null : d.path("destination").asText())
          .isEqualTo(e.destination().orElse(null));
      assertThat(d.path("headers").isNull() ? null : d.path("headers").asText())
          .isEqualTo(JsonSupport.encodeHeaders(e.headers()));
      assertThat(d.path("payload").asText()).isEqualTo(preview(e.payload()));
      assertThat(d.path("payloadLength").asLong()).isEqualTo(e.payload().codePoints().count());
    }

    // 4. Replayed, the unrouted ones to a queue of the operator's (checked first), the other to
    // its own once it exists: each arrives as written.
    createQueue(prefix + "-far-later");
    List<String> unrouted =
        again.subList(1, again.size()).stream().map(e -> "\"" + e.id() + "\"").toList();
    JsonNode replayed =
        reprocessor.invoke(
            "{\"action\":\"replay\",\"ids\":["
                + String.join(",", unrouted)
                + "],\"destination\":\""
                + replayQueue
                + "\"}");
    assertThat(replayed.path("replayed")).hasSize(unrouted.size());
    reprocessor.invoke("{\"action\":\"replay\",\"ids\":[\"" + again.get(0).id() + "\"]}");
    try (PollerRunner poller = poller(Map.of())) {
      // The far queue's next probe (a second after it was found missing) finds it now.
      assertThat(publishedWithin(poller, Duration.ofSeconds(20))).isEqualTo(again.size());
      assertArrived(poller.receive(replayQueue, unrouted.size()), again.subList(1, again.size()));
      assertArrived(poller.receive(farAway, 1), again.subList(0, 1));
    }
    assertThat(reprocessor.rows.outboxIds()).isEmpty();
    assertThat(reprocessor.rows.deadIds()).isEmpty();
  }

  /**
   * Three events at the writer's limits, the first with its own destination {@code destination}:
   * names and keys of 255 three-byte characters and five headers with the longest names; the
   * largest payload; the largest headers.
   */
  private static List<OutboxEvent> atTheLimits(String copy, String destination) {
    List<OutboxEvent> events = new ArrayList<>();
    OutboxEvent.Builder names =
        OutboxEvent.builder()
            .aggregateType(WIDE.repeat(OutboxEvent.MAX_NAME_LENGTH))
            .aggregateId(copy + WIDE.repeat(OutboxEvent.MAX_NAME_LENGTH - 1))
            .eventType(WIDE.repeat(OutboxEvent.MAX_NAME_LENGTH - 1) + copy)
            .idempotencyKey(copy + "-names-" + WIDE.repeat(OutboxEvent.MAX_NAME_LENGTH - 8))
            .destination(destination)
            .payload("{\"names\":\"" + WIDE + "\"}");
    for (int h = 0; h < OutboxMessageAttributes.MAX_HEADERS; h++) {
      names.header(headerName(h), "v" + h);
    }
    events.add(names.build());

    events.add(payloadAtTheLimit(copy, "payload", "😀é\\\\\\\""));
    // Four bytes a character, as many as fit: the most bytes a character takes, in every result.
    events.add(payloadAtTheLimit(copy, "widest", "😀"));

    OutboxEvent.Builder headers =
        OutboxEvent.builder()
            .aggregateType("order")
            .aggregateId(copy + "-headers")
            .eventType("order.headers")
            .idempotencyKey(copy + "-headers-" + WIDE.repeat(OutboxEvent.MAX_NAME_LENGTH - 10))
            .occurredAt(Instant.now())
            .payload("{}");
    for (int h = 0; h < OutboxMessageAttributes.MAX_HEADERS; h++) {
      headers.header(headerName(h), "x");
    }
    long free = MessageSize.MAX_BYTES - headers.build().messageSize();
    for (int h = 0; h < OutboxMessageAttributes.MAX_HEADERS; h++) {
      long share =
          (free + OutboxMessageAttributes.MAX_HEADERS - 1 - h)
              / OutboxMessageAttributes.MAX_HEADERS;
      headers.header(headerName(h), utf8Bytes((int) share + 1, "\"\\\n\t"));
    }
    events.add(headers.build());

    for (OutboxEvent e : events.subList(1, 4)) {
      assertThat(e.messageSize()).as(e.toString()).isEqualTo(MessageSize.MAX_BYTES);
    }
    assertThat(JsonSupport.encodeHeaders(events.get(3).headers()).length())
        .as("the headers' JSON: each byte of their values two, far past a TEXT column's 64 KiB")
        .isGreaterThan(2 * (MessageSize.MAX_BYTES - 5 * 1024));
    return events;
  }

  /** An event whose payload fills the message to the writer's limit, repeating {@code unit}. */
  private static OutboxEvent payloadAtTheLimit(String copy, String name, String unit) {
    String prefix = copy + "-" + name + "-";
    OutboxEvent.Builder payload =
        OutboxEvent.builder()
            .aggregateType("order")
            .aggregateId(copy + "-" + name)
            .eventType("order." + name)
            .idempotencyKey(prefix + WIDE.repeat(OutboxEvent.MAX_NAME_LENGTH - prefix.length()))
            // One time for both builds: its attribute takes 20, 24 or 27 characters.
            .occurredAt(Instant.now())
            .payload("\"\"");
    long room = MessageSize.MAX_BYTES - payload.build().messageSize();
    return payload.payload("\"" + utf8Bytes((int) room, unit) + "\"").build();
  }

  /** A header name of the longest length the writer takes (and SQS, whatever its guide says). */
  private static String headerName(int h) {
    String start = "h" + h + "-";
    return start + "n".repeat(EventRules.MAX_HEADER_NAME_LENGTH - start.length());
  }

  /** Text of exactly {@code bytes} UTF-8 bytes, repeating {@code unit}, padded with 'a'. */
  private static String utf8Bytes(int bytes, String unit) {
    int unitBytes = unit.getBytes(StandardCharsets.UTF_8).length;
    StringBuilder text = new StringBuilder(bytes);
    int left = bytes;
    while (left >= unitBytes) {
      text.append(unit);
      left -= unitBytes;
    }
    return text.append("a".repeat(left)).toString();
  }

  /** The first 1,000 characters, counted as the databases count them (code points). */
  private static String preview(String payload) {
    return payload
        .codePoints()
        .limit(DeadLetterActions.PAYLOAD_PREVIEW_CHARS)
        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
        .toString();
  }

  /** Each message's body and attributes are its event's payload and attributes, exactly. */
  private static void assertArrived(List<Message> received, List<OutboxEvent> events) {
    Map<String, OutboxEvent> byId =
        events.stream().collect(Collectors.toMap(e -> e.id().toString(), e -> e));
    assertThat(received).hasSize(events.size());
    for (Message m : received) {
      OutboxEvent e = byId.get(PollerRunner.attribute(m, OutboxMessageAttributes.EVENT_ID));
      assertThat(e).as("an event that was written").isNotNull();
      assertThat(m.body()).as(e.toString()).isEqualTo(e.payload());
      Map<String, String> attributes = new LinkedHashMap<>();
      m.messageAttributes().forEach((name, value) -> attributes.put(name, value.stringValue()));
      assertThat(attributes).as(e.toString()).isEqualTo(e.messageAttributes());
    }
  }

  private void append(List<OutboxEvent> events) {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    db.jdbi().useTransaction(h -> writer.appendAll(h, events));
  }

  /** A poller on these tables that probes a destination found down a second later. */
  private PollerRunner poller(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(overrides);
    env.put("OUTBOX_PROBE_INTERVAL_MIN_MS", "1000");
    env.put("OUTBOX_PROBE_INTERVAL_MAX_MS", "5000");
    return new PollerRunner(db, tables, backend().executor(tables, resources), env);
  }

  /** Polls until nothing is left in the outbox or {@code limit} has passed; rows published. */
  private int publishedWithin(PollerRunner poller, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    int published = 0;
    do {
      published += poller.poll().published();
      if (new DeadLetterTables(db, tables).outboxIds().isEmpty()) {
        return published;
      }
      sleep(Duration.ofMillis(250));
    } while (System.nanoTime() < deadline);
    return published;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private String createQueue(String name) {
    String url = sqs.createQueue(r -> r.queueName(name)).queueUrl();
    queues.add(url);
    return url;
  }

  /** The URL the test bed gives a queue of this name, whether or not it exists. */
  private String queueUrlOf(String name) {
    return queue.substring(0, queue.lastIndexOf('/') + 1) + name;
  }

  /**
   * The same queue by a URL of exactly the longest destination the writer takes: a long host of the
   * queue's region (the endpoint finds a queue by its account and name).
   */
  private static String longestUrlOf(String queueUrl) {
    String path = queueUrl.substring(queueUrl.indexOf('/', "http://".length()));
    String start = "http://sqs." + TestEndpoints.aws().region() + ".";
    String end = ".example" + path;
    StringBuilder host = new StringBuilder();
    int room = OutboxEvent.MAX_DESTINATION_LENGTH - start.length() - end.length();
    for (int i = 0; i < room; i++) {
      host.append(i % 64 == 63 && i < room - 1 ? '.' : 'l'); // labels of 63 characters
    }
    String url = start + host + end;
    assertThat(url).hasSize(OutboxEvent.MAX_DESTINATION_LENGTH);
    return url;
  }
}
