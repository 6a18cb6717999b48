package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.JSON;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.poller.internal.wiring.PollerWiring;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;

/**
 * Routes to an EventBridge event bus, on the test bed's LocalStack: a rule on a custom bus forwards
 * every event of the poller's source to an SQS queue, where the test reads back what was put. One
 * subclass per database, and one over the Data API.
 *
 * <p>The batch calls are counted by an interceptor on the real EventBridge and SQS clients (it only
 * looks at each request), so that the test sees how the poller cut a destination's messages.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PollerEventBridgeContract {
  private static final String SOURCE = "com.example.orders";

  PollerTestBed bed;
  private EventBridgeClient events;
  private final List<String> buses = new ArrayList<>();
  private final List<String> buckets = new ArrayList<>();
  private S3Client s3;
  private final List<Integer> putEventsCalls = new CopyOnWriteArrayList<>();
  private final List<Integer> sendBatchCalls = new CopyOnWriteArrayList<>();
  private SqsClient countingSqs;

  abstract TestDatabase database();

  abstract String label();

  @BeforeAll
  void start() {
    bed = new PollerTestBed(label(), database());
    events =
        bed.aws
            .configure(EventBridgeClient.builder())
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .overrideConfiguration(o -> o.addExecutionInterceptor(counting(putEventsCalls)))
            .build();
    countingSqs = PollerTestBed.sqs(bed.aws, Duration.ofSeconds(5), counting(sendBatchCalls));
    s3 = bed.s3();
    try {
      events.listEventBuses(r -> r.limit(1));
    } catch (SdkException e) {
      throw new IllegalStateException(
          "the test bed's LocalStack at "
              + bed.aws.endpoint()
              + " does not serve EventBridge; run scripts/local-aws up, which restarts a"
              + " LocalStack started without it",
          e);
    }
  }

  @AfterAll
  void stop() throws Exception {
    events.close();
    countingSqs.close();
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
    putEventsCalls.clear();
    sendBatchCalls.clear();
  }

  @AfterEach
  void deleteBuses() {
    for (String bus : buses) {
      for (var rule : events.listRules(r -> r.eventBusName(bus)).rules()) {
        events.removeTargets(r -> r.eventBusName(bus).rule(rule.name()).ids("queue"));
        events.deleteRule(r -> r.eventBusName(bus).name(rule.name()));
      }
      events.deleteEventBus(r -> r.name(bus));
    }
    buses.clear();
    for (String bucket : buckets) {
      for (S3Object o : s3.listObjectsV2(r -> r.bucket(bucket)).contents()) {
        s3.deleteObject(r -> r.bucket(bucket).key(o.key()));
      }
      s3.deleteBucket(r -> r.bucket(bucket));
    }
    buckets.clear();
  }

  /** The Detail of an offloaded entry: the pointer, then {@code fields} as written. */
  private static String pointerDetail(String bucket, String key, long size, String fields) {
    return "{\"payloadS3Pointer\":{\"s3BucketName\":\""
        + bucket
        + "\",\"s3Key\":\""
        + key
        + "\"},\"extendedPayloadSize\":"
        + size
        + fields
        + "}";
  }

  /** A claim-check bucket of this test, deleted after it. */
  private String createdBucket() {
    String bucket = bed.name("eb-cc").toLowerCase().replace('_', '-');
    s3.createBucket(r -> r.bucket(bucket));
    buckets.add(bucket);
    return bucket;
  }

  @Test
  void eventsRoutedToABus_arePutWithTheMapping_andReadBackFromTheRulesQueue() throws Exception {
    String queue = bed.queue("eb-sink");
    String bus = busForwardingTo(queue);
    List<OutboxEvent> written = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      written.add(
          withOwnIdInPayload(event("order.created", "o-" + i).header("X-Amzn-Trace-Id", TRACE)));
    }
    bed.append(written.toArray(OutboxEvent[]::new));

    PollSummary summary = bed.invoke(handler(routesTo(bus)));

    assertThat(summary.published()).isEqualTo(12);
    assertThat(summary.deadLettered() + summary.retried() + summary.deferred()).isZero();
    assertThat(putEventsCalls).as("ten entries a call at most").containsExactlyInAnyOrder(10, 2);
    List<JsonNode> put = bodies(bed.receive(queue, 12));
    assertThat(put)
        .extracting(e -> e.get("detail").get("eventId").asText())
        .containsExactlyInAnyOrderElementsOf(written.stream().map(e -> e.id().toString()).toList());
    assertThat(put)
        .allSatisfy(
            e -> {
              assertThat(e.get("source").asText()).isEqualTo(SOURCE);
              assertThat(e.get("detail-type").asText()).isEqualTo("order.created");
              assertThat(e.get("time").asText()).isEqualTo("2026-03-01T09:59:59Z");
            });
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  @Test
  void busesBatches_areCutAtOneMebibyte_andAQueuesToo_whereATopicWouldTakeOneAtATime()
      throws Exception {
    String queue = bed.queue("eb-sink");
    String bus = busForwardingTo(queue);
    String direct = bed.queue("direct");
    List<OutboxEvent> toBus = new ArrayList<>();
    List<OutboxEvent> toQueue = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      toBus.add(withOwnIdInPayload(event("order.created", "b-" + i), 200_000));
      toQueue.add(withOwnIdInPayload(event("audit.logged", "q-" + i), 200_000));
    }
    bed.append(toBus.toArray(OutboxEvent[]::new));
    bed.append(toQueue.toArray(OutboxEvent[]::new));

    PollSummary summary =
        bed.invoke(
            handler(
                "OUTBOX_ROUTES",
                "{\"order.*\":\"" + bus + "\",\"audit.*\":\"" + direct + "\"}",
                "OUTBOX_EVENT_SOURCE",
                SOURCE));

    assertThat(summary.published()).isEqualTo(12);
    if (claimsAllAtOnce()) {
      assertThat(putEventsCalls).as("five of 200 kB fit in 1 MiB").containsExactlyInAnyOrder(5, 1);
      assertThat(sendBatchCalls).as("SQS takes 1 MiB a call too").containsExactlyInAnyOrder(5, 1);
    } else {
      // Claims of what fits one result bring fewer rows at a time: never more than 1 MiB a call.
      assertThat(putEventsCalls).allMatch(n -> n <= 5);
      assertThat(putEventsCalls.stream().mapToInt(Integer::intValue).sum()).isEqualTo(6);
      assertThat(sendBatchCalls).allMatch(n -> n <= 5);
      assertThat(sendBatchCalls.stream().mapToInt(Integer::intValue).sum()).isEqualTo(6);
    }
    assertThat(bodies(bed.receive(queue, 6)))
        .extracting(e -> e.get("detail").get("eventId").asText())
        .containsExactlyInAnyOrderElementsOf(toBus.stream().map(e -> e.id().toString()).toList());
    assertThat(bed.receive(direct, 6)).hasSize(6);
  }

  /**
   * LocalStack still holds an entry's Detail to the former 256 KiB; a poller told that the bus's
   * targets take 1 MiB puts it, and the refusal of that one entry is the message's own.
   */
  @Test
  void anEntryTheBusRefuses_isDeadLetteredWithItsReason_andTheRestOfItsBatchIsPut()
      throws Exception {
    String queue = bed.queue("eb-sink");
    String bus = busForwardingTo(queue);
    List<OutboxEvent> written = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      written.add(withOwnIdInPayload(event("order.created", "o-" + i)));
    }
    bed.append(written.toArray(OutboxEvent[]::new));
    OutboxEvent refused = written.get(2);
    String detail = "{\"blob\":\"" + "x".repeat(256 * 1024 - 11) + "\"}";
    assertThat(detail).hasSize(256 * 1024);
    bed.execute(
        "UPDATE "
            + bed.tables.messages()
            + " SET payload = '"
            + detail
            + "' WHERE id = '"
            + refused.id()
            + "'");

    // The bus's own targets taking 1 MiB, the poller holds entries to that.
    PollSummary summary =
        bed.invoke(handler(concat(routesTo(bus), "OUTBOX_EVENT_BUS_MAX_ENTRY_BYTES", "1048576")));

    assertThat(summary.published()).isEqualTo(4);
    assertThat(summary.deadLettered()).isEqualTo(1);
    Map<String, Object> dead = bed.deadLetter(refused.id());
    assertThat(dead.get("error_code")).isEqualTo("ValidationException");
    assertThat((String) dead.get("error_reason")).contains("over the limit");
    // LocalStack refuses the call after putting the entries before the refused one, so those may
    // arrive twice (sent again one at a time): at least once, as the outbox promises.
    List<String> others =
        written.stream().filter(e -> e != refused).map(e -> e.id().toString()).toList();
    assertThat(bodies(bed.receive(queue, 4)))
        .extracting(e -> e.get("detail").get("eventId").asText())
        .containsOnlyElementsOf(others)
        .containsAll(others);
    assertThat(bed.rows(bed.tables.destinationHealth())).as("the bus is not down").isEmpty();
  }

  @Test
  void aPayloadThatIsNotAJsonObject_isDeadLetteredBeforeThePut_sayingSo() throws Exception {
    String queue = bed.queue("eb-sink");
    String bus = busForwardingTo(queue);
    UUID array = bed.append(event("order.created", "o-1").payload("[1,2,3]").build()).get(0);
    UUID object = bed.append(event("order.created", "o-2").build()).get(0);

    PollSummary summary = bed.invoke(handler(routesTo(bus)));

    assertThat(summary.published()).isEqualTo(1);
    assertThat(summary.deadLettered()).isEqualTo(1);
    Map<String, Object> dead = bed.deadLetter(array);
    assertThat(dead.get("error_code")).isEqualTo("DETAIL_NOT_A_JSON_OBJECT");
    assertThat((String) dead.get("error_reason"))
        .contains("not a JSON object")
        .contains("EventBridge");
    assertThat(bed.outboxRow(object)).isNull();
    assertThat(bed.receive(queue, 1)).hasSize(1);
  }

  /**
   * PutEvents takes events for a bus that does not exist and drops them (LocalStack, as EventBridge
   * does): the poller looks the bus up first, and its rows wait as for a missing topic.
   */
  @Test
  void aBusThatDoesNotExist_isMisconfigured_itsRowsWaitIntact_andFlowOnceItIsCreated()
      throws Exception {
    String queue = bed.queue("eb-sink");
    String name = bed.name("missing-bus");
    String missing = busArn(name);
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(bed.append(withOwnIdInPayload(event("order.created", "o-" + i))).get(0));
    }
    PollerHandler handler = handler(routesTo(missing));

    PollSummary first = bed.invoke(handler);

    assertThat(first.published() + first.deadLettered() + first.retried()).isZero();
    assertThat(first.deferred()).isEqualTo(3);
    assertThat(putEventsCalls).as("nothing put on a bus that is not there").isEmpty();
    for (UUID id : ids) {
      Map<String, Object> row = bed.outboxRow(id);
      assertThat(row.get("retry_count")).isEqualTo(0);
      assertThat(row.get("last_error_code")).isEqualTo("ResourceNotFoundException");
    }
    assertThat(bed.rows(bed.tables.destinationHealth()))
        .singleElement()
        .satisfies(h -> assertThat(h.get("state")).isEqualTo("MISCONFIGURED"));
    assertThat(bed.logs("ERROR"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("destination").asText()).isEqualTo(missing);
              assertThat(e.get("fix").asText()).contains("create the event bus " + missing);
            });

    assertThat(busForwardingTo(queue, name)).isEqualTo(missing);
    bed.clock.advance(Duration.ofMinutes(2));
    PollSummary second = bed.invoke(handler);

    assertThat(second.published()).isEqualTo(3);
    assertThat(bodies(bed.receive(queue, 3)))
        .extracting(e -> e.get("detail").get("eventId").asText())
        .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
  }

  @Test
  void orderedPoller_refusesARouteToABus_atStartUp_namingTheRoute_andTouchesNoRow() {
    String bus = busArn(bed.name("ordered"));
    UUID id = bed.append(event("order.created", "o-1").build()).get(0);

    assertThatThrownBy(
            () ->
                bed.config(
                    "OUTBOX_ORDERING",
                    "aggregate",
                    "OUTBOX_ROUTES",
                    "{\"order.*\":\"" + bus + "\"}"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_ROUTES: route 'order.*' names the EventBridge event bus")
        .hasMessageContaining("keeps no order")
        .hasMessageContaining("OUTBOX_ORDERING=none");
    assertThat(bed.outboxRow(id).get("status")).isEqualTo("PENDING");
  }

  /**
   * With a claim-check bucket, a payload over the bus's 1 MiB is stored in S3 and the entry's
   * Detail is the pointer object, which the rule forwards like any other.
   */
  @Test
  void aPayloadOverTheBusLimit_withAClaimCheckBucket_isPutAsAPointerObject() throws Exception {
    String queue = bed.queue("eb-cc-sink");
    String bus = busForwardingTo(queue);
    String bucket = createdBucket();
    String payload = "{\"blob\":\"" + "\uD83D\uDE00".repeat(512 * 1024) + "\"}";
    OutboxEvent big = event("order.created", "cc-1").payload(payload).build();
    bed.append(PollerClaimCheckContract.largePayloadWriter(bed), List.of(big));

    PollSummary summary =
        bed.invoke(
            handler(
                "OUTBOX_ROUTES",
                "{\"order.*\":\"" + bus + "\"}",
                "OUTBOX_EVENT_SOURCE",
                SOURCE,
                "OUTBOX_CLAIM_CHECK_BUCKET",
                bucket));

    assertThat(summary.published()).isEqualTo(1);
    JsonNode detail = bodies(bed.receive(queue, 1)).get(0).get("detail");
    long bytes = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    String key = PollerClaimCheckContract.key("outbox-payloads/", bus, big);
    assertThat(key).startsWith("outbox-payloads/events/000000000000/");
    assertThat(detail.toString()).isEqualTo(pointerDetail(bucket, key, bytes, ""));
    assertThat(s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String())
        .isEqualTo(payload);
  }

  /**
   * A bus's targets (SNS, Step Functions) may take less than the 1 MiB PutEvents does, and fail
   * there after the row is gone: by default the poller holds an entry to 256 KiB, and without a
   * claim-check bucket dead-letters a larger one before the put, saying which setting to raise.
   * Here the payload is within the outbox's 256 KiB, and Source, DetailType and Time take the entry
   * over.
   */
  @Test
  void anEntryOverTheBusEntryLimit_withoutABucket_isDeadLetteredBeforeThePut_namingTheSetting()
      throws Exception {
    String queue = bed.queue("eb-sink");
    String bus = busForwardingTo(queue);
    String payload = "{\"blob\":\"" + "x".repeat(256 * 1024 - 11 - 20) + "\"}";
    assertThat(payload.length() + SOURCE.length() + "order.created".length() + 14)
        .isGreaterThan(256 * 1024);
    OutboxEvent large = event("order.created", "l-1").payload(payload).build();
    bed.append(PollerClaimCheckContract.largePayloadWriter(bed), List.of(large));

    PollSummary summary = bed.invoke(handler(routesTo(bus)));

    assertThat(summary.deadLettered()).isEqualTo(1);
    assertThat(putEventsCalls).as("nothing put").isEmpty();
    Map<String, Object> dead = bed.deadLetter(large.id());
    assertThat(dead.get("error_code")).isEqualTo("MESSAGE_TOO_LARGE");
    assertThat((String) dead.get("error_reason"))
        .contains("262144", "OUTBOX_EVENT_BUS_MAX_ENTRY_BYTES", "claim-check bucket");
  }

  /**
   * A rule on a field of the payload still matches an entry whose payload went to S3: its Detail
   * keeps the payload's short fields beside the pointer, and drops what is long.
   */
  @Test
  void anOffloadedEntry_keepsItsMatchableFieldsBesideThePointer_soARuleOnDetailStillMatches()
      throws Exception {
    String paid = bed.queue("eb-paid");
    String bus =
        busForwardingTo(
            paid,
            bed.name("bus"),
            "{\"source\":[\"" + SOURCE + "\"],\"detail\":{\"status\":[\"PAID\"]}}");
    String bucket = createdBucket();
    String blob = "x".repeat(300_000);
    OutboxEvent paidEvent =
        event("order.created", "m-1")
            .payload(
                "{\"status\":\"PAID\",\"amount\":42.5,\"blob\":\""
                    + blob
                    + "\",\"customer\":{\"tier\":\"gold\",\"note\":\""
                    + "n".repeat(2_000)
                    + "\"},\"tags\":[\"a\",\"b\"],\"lines\":[{\"sku\":\"x\"}],\"open\":false}")
            .build();
    OutboxEvent openEvent =
        event("order.created", "m-2")
            .payload("{\"status\":\"OPEN\",\"blob\":\"" + blob + "\"}")
            .build();
    bed.append(PollerClaimCheckContract.largePayloadWriter(bed), List.of(paidEvent, openEvent));

    PollSummary summary =
        bed.invoke(handler(concat(routesTo(bus), "OUTBOX_CLAIM_CHECK_BUCKET", bucket)));

    assertThat(summary.published()).isEqualTo(2);
    List<JsonNode> matched = bodies(bed.receive(paid, 1));
    assertThat(matched).as("the rule on detail.status matched the PAID entry only").hasSize(1);
    JsonNode detail = matched.get(0).get("detail");
    String key = PollerClaimCheckContract.key("outbox-payloads/", bus, paidEvent);
    assertThat(detail.toString())
        .isEqualTo(
            pointerDetail(
                bucket,
                key,
                paidEvent.payload().length(),
                ",\"status\":\"PAID\",\"amount\":42.5,\"customer\":{\"tier\":\"gold\"},"
                    + "\"tags\":[\"a\",\"b\"],\"open\":false"));
    assertThat(s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String())
        .isEqualTo(paidEvent.payload());
  }

  // ---- helpers

  private static String[] concat(String[] first, String... more) {
    String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
    System.arraycopy(more, 0, all, first.length, more.length);
    return all;
  }

  private static final String TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1";

  private String[] routesTo(String bus) {
    return new String[] {
      "OUTBOX_ROUTES", "{\"order.*\":\"" + bus + "\"}", "OUTBOX_EVENT_SOURCE", SOURCE
    };
  }

  private PollerHandler handler(String... overrides) {
    PollerConfig config = bed.config(overrides);
    return bed.handler(
        config, store(config), PollerWiring.publisher(config, bed.sns, countingSqs, () -> events));
  }

  /** Whether one claim brings every due row of these tests (over JDBC it does). */
  boolean claimsAllAtOnce() {
    return true;
  }

  /** How the poller reaches the tables: over JDBC, unless a subclass says otherwise. */
  OutboxStore store(PollerConfig config) {
    return bed.store(config);
  }

  private String busArn(String name) {
    return "arn:aws:events:" + bed.aws.region() + ":000000000000:event-bus/" + name;
  }

  private String busForwardingTo(String queueUrl) {
    return busForwardingTo(queueUrl, bed.name("bus"));
  }

  /** A bus named {@code name} whose rule sends every event of {@link #SOURCE} to the queue. */
  private String busForwardingTo(String queueUrl, String name) {
    return busForwardingTo(queueUrl, name, "{\"source\":[\"" + SOURCE + "\"]}");
  }

  /** A bus named {@code name} whose rule sends the events {@code pattern} matches to the queue. */
  private String busForwardingTo(String queueUrl, String name, String pattern) {
    String arn = events.createEventBus(r -> r.name(name)).eventBusArn();
    buses.add(name);
    String queueArn = AwsEndpoint.queueArn(bed.sqs, queueUrl);
    events.putRule(r -> r.eventBusName(name).name("to-queue").eventPattern(pattern));
    events.putTargets(
        r -> r.eventBusName(name).rule("to-queue").targets(t -> t.id("queue").arn(queueArn)));
    return arn;
  }

  /** The event with its own id in its payload, so that what the bus delivers can be told apart. */
  private static OutboxEvent withOwnIdInPayload(OutboxEvent.Builder builder) {
    return withOwnIdInPayload(builder, 0);
  }

  private static OutboxEvent withOwnIdInPayload(OutboxEvent.Builder builder, int padding) {
    OutboxEvent event = builder.build();
    return event.toBuilder()
        .payload("{\"eventId\":\"" + event.id() + "\",\"pad\":\"" + "x".repeat(padding) + "\"}")
        .build();
  }

  private static List<JsonNode> bodies(List<Message> messages) throws JsonProcessingException {
    List<JsonNode> bodies = new ArrayList<>();
    for (Message m : messages) {
      bodies.add(JSON.readTree(m.body()));
    }
    return bodies;
  }

  /** Records the number of entries of every PutEvents and SendMessageBatch request. */
  private static ExecutionInterceptor counting(List<Integer> calls) {
    return new ExecutionInterceptor() {
      @Override
      public void beforeExecution(
          Context.BeforeExecution context, ExecutionAttributes executionAttributes) {
        SdkRequest request = context.request();
        if (request instanceof PutEventsRequest put) {
          calls.add(put.entries().size());
        } else if (request instanceof SendMessageBatchRequest send) {
          calls.add(send.entries().size());
        }
      }
    };
  }
}
