package dev.lambdaoutbox.bench;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.MessageAttribute;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.SQSMessage;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.consumer.SqsInboxConsumer;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What {@link SqsInboxConsumer} costs per message, against a consumer without it. A harness that
 * prints figures, not a test: it asserts nothing.
 *
 * <p>Both sides get the same SQS batches of 10 records (raw delivery: the outbox's message
 * attributes and a JSON payload), one Jdbi handle per batch on one reused connection (as from a
 * pool), and one transaction per record, in which the payload is read with Jackson and the business
 * row inserted:
 *
 * <ul>
 *   <li>(a) bare: the loop written by hand: read the {@code eventId} attribute and the body,
 *       insert, commit; no de-duplication, no partial batch response;
 *   <li>(b) {@link SqsInboxConsumer}: the same INSERT in its handler; it also reads and checks
 *       every attribute, records the event in the inbox and builds the response;
 *   <li>(c) (b)'s batches delivered again: every record is already in the inbox, so its handler
 *       does not run. What a redelivery costs.
 * </ul>
 *
 * <p>After a warm-up it runs several rounds, each starting from empty tables (untimed); within a
 * round the variants take turns batch slice by batch slice, in alternating order, so load changes
 * fall on all alike. "x (a)" is the time per message against (a).
 *
 * <pre>
 * ./mvnw -B -q -pl tests -am compile exec:java \
 *     -Dexec.mainClass=dev.lambdaoutbox.bench.ConsumerOverheadBenchmark
 * </pre>
 *
 * <p>System properties: {@code bench.rounds} (5), {@code bench.messages} per variant and round
 * (2000), {@code bench.warmup} messages per variant (2000), {@code bench.slice} batches before the
 * next variant's turn (10), {@code bench.databases} ("postgres,mariadb").
 */
public final class ConsumerOverheadBenchmark {
  private static final int BATCH = 10;
  private static final ObjectMapper JSON =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final int rounds = Integer.getInteger("bench.rounds", 5);
  private final int messages = Integer.getInteger("bench.messages", 2_000);
  private final int warmup = Integer.getInteger("bench.warmup", 2_000);
  private final int slice = Integer.getInteger("bench.slice", 10);

  enum Variant {
    BARE("(a) bare loop: INSERT per message"),
    CONSUMER("(b) SqsInboxConsumer, same INSERT"),
    REDELIVERED("(c) (b) delivered again (skipped)"),
    /** The floor: the inbox row written by hand, no library code. */
    HAND_WRITTEN_INBOX("(r) (a) + inbox row by hand");

    final String label;

    Variant(String label) {
      this.label = label;
    }
  }

  /** The business fact each message reports. */
  public record Payment(String orderId, String customerId, long amountCents, String currency) {}

  public static void main(String[] args) throws Exception {
    ConsumerOverheadBenchmark bench = new ConsumerOverheadBenchmark();
    List<String> wanted =
        List.of(System.getProperty("bench.databases", "postgres,mariadb").split(","));
    if (wanted.contains("postgres")) {
      bench.run(TestEndpoints.postgres());
    }
    if (wanted.contains("mariadb")) {
      bench.run(TestEndpoints.mysql());
    }
  }

  private void run(TestDatabase db) throws Exception {
    OutboxTables tables = db.createTables("cbench");
    String payments = tables.prefix() + "payments";
    try (Connection c = db.open();
        Statement st = c.createStatement();
        SingleConnectionDataSource pool = new SingleConnectionDataSource(db.open())) {
      st.execute(
          "CREATE TABLE "
              + payments
              + " (order_id varchar(64) NOT NULL PRIMARY KEY, event_id varchar(36) NOT NULL,"
              + " customer_id varchar(64) NOT NULL, amount_cents bigint NOT NULL)");
      Workload workload = new Workload(db, tables, payments, Jdbi.create(pool));
      System.out.printf(
          Locale.ROOT,
          "%n%s (%s), JDK %s%n%d rounds x %d messages per variant in batches of %d, after %d"
              + " warm-up%n",
          db.name(),
          serverVersion(c),
          Runtime.version(),
          rounds,
          messages,
          BATCH,
          warmup);
      workload.truncate();
      round(workload, warmup, newTimings());
      Map<Variant, long[]> timings = newTimings();
      for (int r = 0; r < rounds; r++) {
        workload.truncate();
        round(workload, messages, timings);
      }
      print(timings);
    } finally {
      try (Connection c = db.open();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + payments);
      }
      db.dropTables(tables);
    }
  }

  /**
   * One round: {@code perVariant} messages of each variant, the variants taking turns every {@link
   * #slice} batches. (c) re-delivers the batches (b) processed in the same turn.
   */
  private void round(Workload workload, int perVariant, Map<Variant, long[]> timings) {
    int batches = perVariant / BATCH;
    boolean forward = true;
    for (int done = 0; done < batches; done += slice) {
      int n = Math.min(slice, batches - done);
      List<SQSEvent> bare = workload.batches(n);
      List<SQSEvent> consumed = workload.batches(n);
      Map<Variant, List<SQSEvent>> input = new EnumMap<>(Variant.class);
      input.put(Variant.BARE, bare);
      input.put(Variant.HAND_WRITTEN_INBOX, workload.batches(n));
      input.put(Variant.CONSUMER, consumed);
      input.put(Variant.REDELIVERED, consumed);
      // (c) must follow (b); the others alternate between first and last.
      List<Variant> turn =
          forward
              ? List.of(
                  Variant.BARE, Variant.HAND_WRITTEN_INBOX, Variant.CONSUMER, Variant.REDELIVERED)
              : List.of(
                  Variant.CONSUMER, Variant.REDELIVERED, Variant.HAND_WRITTEN_INBOX, Variant.BARE);
      for (Variant v : turn) {
        long began = System.nanoTime();
        for (SQSEvent event : input.get(v)) {
          workload.deliver(v, event);
        }
        long[] t = timings.get(v);
        t[0] += System.nanoTime() - began;
        t[1] += (long) n * BATCH;
      }
      forward = !forward;
    }
  }

  private static Map<Variant, long[]> newTimings() {
    Map<Variant, long[]> timings = new EnumMap<>(Variant.class);
    for (Variant v : Variant.values()) {
      timings.put(v, new long[2]); // elapsed nanoseconds, messages
    }
    return timings;
  }

  /** The batches and the two ways of consuming them, on one database. */
  private static final class Workload {
    final TestDatabase db;
    final OutboxTables tables;
    final String payments;
    final String insert;
    final String recordInInbox;
    final Jdbi jdbi;
    final SqsInboxConsumer consumer;
    long sequence;

    Workload(TestDatabase db, OutboxTables tables, String payments, Jdbi jdbi) {
      this.db = db;
      this.tables = tables;
      this.payments = payments;
      this.jdbi = jdbi;
      this.insert =
          "INSERT INTO "
              + payments
              + " (order_id, event_id, customer_id, amount_cents) VALUES (?, ?, ?, ?)";
      this.recordInInbox =
          db.dialect() == SqlDialect.POSTGRESQL
              ? "INSERT INTO "
                  + tables.inbox()
                  + " (consumer_name, message_id, processed_at) VALUES (?, ?, ?)"
                  + " ON CONFLICT DO NOTHING"
              : "INSERT IGNORE INTO "
                  + tables.inbox()
                  + " (consumer_name, message_id, processed_at) VALUES (?, ?, ?)";
      this.consumer =
          SqsInboxConsumer.builder()
              .jdbi(jdbi)
              .consumerName("payments-service")
              .tables(tables)
              .handler(
                  (handle, event) -> {
                    Payment p = event.payload(Payment.class, JSON);
                    insert(handle, event.eventId().toString(), p);
                  })
              .build();
    }

    void deliver(Variant v, SQSEvent event) {
      if (v == Variant.BARE || v == Variant.HAND_WRITTEN_INBOX) {
        bare(event, v == Variant.HAND_WRITTEN_INBOX);
      } else {
        SQSBatchResponse response = consumer.handle(event);
        if (!response.getBatchItemFailures().isEmpty()) {
          throw new IllegalStateException("records failed: " + response.getBatchItemFailures());
        }
      }
    }

    /**
     * The consumer without SqsInboxConsumer: one transaction per record; with {@code inbox}, the
     * inbox row written by hand first (and the work skipped when it was there).
     */
    void bare(SQSEvent event, boolean inbox) {
      try (Handle handle = jdbi.open()) {
        for (SQSMessage record : event.getRecords()) {
          String eventId = record.getMessageAttributes().get("eventId").getStringValue();
          Payment p = read(record.getBody());
          handle.useTransaction(
              h -> {
                if (!inbox || h.execute(recordInInbox, "payments-service", eventId, now()) == 1) {
                  insert(h, eventId, p);
                }
              });
        }
      }
    }

    private Object now() {
      Instant now = Instant.now();
      return db.dialect() == SqlDialect.POSTGRESQL
          ? now.atOffset(ZoneOffset.UTC)
          : LocalDateTime.ofInstant(now, ZoneOffset.UTC).toString().replace('T', ' ');
    }

    void insert(Handle handle, String eventId, Payment p) {
      handle.execute(insert, p.orderId(), eventId, p.customerId(), p.amountCents());
    }

    static Payment read(String json) {
      try {
        return JSON.readValue(json, Payment.class);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    /** {@code n} batches of 10 records as the outbox poller publishes them, raw delivery. */
    List<SQSEvent> batches(int n) {
      List<SQSEvent> events = new ArrayList<>();
      for (int b = 0; b < n; b++) {
        List<SQSMessage> records = new ArrayList<>();
        for (int i = 0; i < BATCH; i++) {
          records.add(record(sequence++));
        }
        SQSEvent event = new SQSEvent();
        event.setRecords(records);
        events.add(event);
      }
      return events;
    }

    private static SQSMessage record(long n) {
      UUID eventId = UuidV7.generate();
      String orderId = "order-" + n;
      Map<String, MessageAttribute> attributes = new LinkedHashMap<>();
      attributes.put("eventId", attribute(eventId.toString()));
      attributes.put("eventType", attribute("payment.captured"));
      attributes.put("aggregateType", attribute("order"));
      attributes.put("aggregateId", attribute(orderId));
      attributes.put("occurredAt", attribute(Instant.now().toString()));
      attributes.put(
          "traceparent", attribute("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
      SQSMessage m = new SQSMessage();
      m.setMessageId(UUID.randomUUID().toString());
      m.setReceiptHandle("receipt-" + n);
      m.setBody(
          "{\"orderId\":\""
              + orderId
              + "\",\"customerId\":\"c-"
              + (n % 10_000)
              + "\",\"amountCents\":4250,\"currency\":\"EUR\"}");
      m.setMessageAttributes(attributes);
      m.setAttributes(Map.of("ApproximateReceiveCount", "1", "SentTimestamp", "1767261600000"));
      m.setEventSource("aws:sqs");
      m.setEventSourceArn("arn:aws:sqs:us-east-1:123456789012:payments");
      m.setAwsRegion("us-east-1");
      return m;
    }

    private static MessageAttribute attribute(String value) {
      MessageAttribute a = new MessageAttribute();
      a.setDataType("String");
      a.setStringValue(value);
      return a;
    }

    void truncate() throws SQLException {
      try (Connection c = db.open();
          Statement st = c.createStatement()) {
        st.execute("TRUNCATE TABLE " + payments);
        st.execute("TRUNCATE TABLE " + tables.inbox());
      }
    }
  }

  private static void print(Map<Variant, long[]> timings) {
    System.out.printf(
        Locale.ROOT, "%-38s %10s %10s %8s %8s%n", "variant", "msg/s", "us/msg", "x (a)", "x (r)");
    double base = micros(timings.get(Variant.BARE));
    double floor = micros(timings.get(Variant.HAND_WRITTEN_INBOX));
    for (Map.Entry<Variant, long[]> e : timings.entrySet()) {
      double us = micros(e.getValue());
      System.out.printf(
          Locale.ROOT,
          "%-38s %10.0f %10.1f %7.2fx %8s%n",
          e.getKey().label,
          1e6 / us,
          us,
          us / base,
          e.getKey() == Variant.CONSUMER ? String.format(Locale.ROOT, "%.2fx", us / floor) : "");
    }
  }

  private static double micros(long[] t) {
    return t[0] / 1e3 / t[1];
  }

  private static String serverVersion(Connection c) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
  }
}
