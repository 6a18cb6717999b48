package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.lambdaoutbox.consumer.InboundEvent;
import dev.lambdaoutbox.consumer.SqsInboxConsumer;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.SqsLambdaEvents;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * {@code OUTBOX_MESSAGE_ENVELOPE=cloudevents}: the poller publishes structured CloudEvents to SQS,
 * to SNS with and without raw delivery, and through the claim check to S3; every body validates
 * against the CloudEvents 1.0 JSON schema (the specification's {@code cloudevents.json}, formats
 * asserted), and {@link SqsInboxConsumer} hands over the payload exactly as written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerCloudEventsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SOURCE = "/reservations-service";
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  /** Spaces, escapes and a non-ASCII character, which must reach the consumer unchanged. */
  private static final String PAYLOAD =
      "{ \"id\" : \"r-1\", \"shop\":\"caf\\u00e9 é\", \"guests\": [2, 3] }";

  private PollerTestBed bed;
  private Schema schema;
  private S3Client s3;
  private final List<String> buckets = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    bed = new PollerTestBed("cloudevents");
    try (InputStream in = getClass().getResourceAsStream("/cloudevents/cloudevents.json")) {
      schema =
          SchemaRegistry.withDefaultDialect(
                  SpecificationVersion.DRAFT_7,
                  b ->
                      b.schemaRegistryConfig(
                          SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()))
              .getSchema(in);
    }
    s3 =
        bed.aws
            .configure(S3Client.builder())
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .build();
  }

  @AfterAll
  void stop() throws Exception {
    for (String bucket : buckets) {
      for (S3Object o : s3.listObjectsV2(r -> r.bucket(bucket)).contents()) {
        s3.deleteObject(r -> r.bucket(bucket).key(o.key()));
      }
      s3.deleteBucket(r -> r.bucket(bucket));
    }
    s3.close();
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @Test
  void toSqsAndSns_eachMessageIsAStructuredCloudEvent_validAgainstTheSchema_readBackAsWritten()
      throws Exception {
    String queue = bed.queue("ce-direct");
    String topic = bed.topic("ce-topic");
    String rawSink = bed.queue("ce-raw");
    bed.subscribeRaw(topic, rawSink);
    String envelopedSink = bed.queue("ce-enveloped");
    subscribeWithEnvelope(topic, envelopedSink);
    OutboxEvent toQueue =
        event("reservation.created", "r-1")
            .payload(PAYLOAD)
            .header("traceparent", TRACEPARENT)
            .header("tracestate", "vendor=1")
            .build();
    OutboxEvent toTopic = event("reservation.confirmed", "r-1").payload(PAYLOAD).build();
    bed.append(toQueue, toTopic);

    PollSummary summary = invoke(routes(queue, topic));

    assertThat(summary.published()).isEqualTo(2);
    Message direct = only(bed.receive(queue, 1));
    Message raw = only(bed.receive(rawSink, 1));
    Message enveloped = only(bed.receive(envelopedSink, 1));
    String snsBody = JSON.readTree(enveloped.body()).path("Message").asText();
    for (String body : List.of(direct.body(), raw.body(), snsBody)) {
      assertThat(schema.validate(body, InputFormat.JSON)).as(body).isEmpty();
      assertExtensionNames(body);
    }

    JsonNode event = JSON.readTree(direct.body());
    assertThat(event.path("specversion").asText()).isEqualTo("1.0");
    assertThat(event.path("id").asText()).isEqualTo(toQueue.id().toString());
    assertThat(event.path("source").asText()).isEqualTo(SOURCE);
    assertThat(event.path("type").asText()).isEqualTo("reservation.created");
    assertThat(event.path("subject").asText()).isEqualTo("r-1");
    assertThat(event.path("aggregatetype").asText()).isEqualTo("order");
    assertThat(event.path("time").asText()).isEqualTo(toQueue.occurredAt().toString());
    assertThat(event.path("datacontenttype").asText()).isEqualTo("application/json");
    assertThat(event.path("traceparent").asText()).isEqualTo(TRACEPARENT);
    assertThat(event.path("tracestate").asText()).isEqualTo("vendor=1");
    assertThat(event.path("data")).isEqualTo(JSON.readTree(PAYLOAD));
    assertThat(JSON.readTree(raw.body()).has("traceparent")).as("no trace context").isFalse();
    assertThat(direct.messageAttributes().get("eventId").stringValue())
        .as("the message attributes stay as they are")
        .isEqualTo(toQueue.id().toString());

    List<InboundEvent> consumed = consume(queue, direct);
    consumed.addAll(consume(rawSink, raw));
    consumed.addAll(consume(envelopedSink, enveloped));
    assertThat(consumed).hasSize(3).allSatisfy(e -> assertThat(e.payload()).isEqualTo(PAYLOAD));
    assertThat(consumed.get(0).eventId()).isEqualTo(toQueue.id());
    assertThat(consumed.get(0).headers()).containsEntry("traceparent", TRACEPARENT);
    assertThat(consumed.get(2).eventId()).isEqualTo(toTopic.id());
  }

  @Test
  void throughTheClaimCheck_theS3ObjectIsTheCloudEvent_andTheConsumerReadsItsData()
      throws Exception {
    String bucket = bed.name("ce").toLowerCase().replace('_', '-');
    s3.createBucket(r -> r.bucket(bucket));
    buckets.add(bucket);
    String queue = bed.queue("ce-claim-check");
    // Over the threshold, whole in the claim; and over 256 KiB, which the claim returns cut and
    // the claim check reads whole from the outbox.
    String overThreshold = "{\"text\":\"" + "é".repeat(600) + "\"}";
    String cut = "{\"text\":\"" + "x".repeat(300 * 1024) + "\"}";
    OutboxEvent small = event("reservation.created", "r-2").payload(overThreshold).build();
    OutboxEvent big = event("reservation.created", "r-3").payload(cut).build();
    bed.append(PollerClaimCheckContract.largePayloadWriter(bed), List.of(small, big));

    PollSummary summary =
        invoke(
            routes(queue, queue),
            "OUTBOX_CLAIM_CHECK_BUCKET",
            bucket,
            "OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES",
            "1000");

    assertThat(summary.published()).isEqualTo(2);
    List<Message> pointers = bed.receive(queue, 2);
    assertThat(pointers).hasSize(2);
    Map<String, String> payloads =
        Map.of(small.id().toString(), overThreshold, big.id().toString(), cut);
    for (Message pointer : pointers) {
      assertThat(pointer.body())
          .startsWith("[\"software.amazon.payloadoffloading.PayloadS3Pointer\"");
      Matcher key = Pattern.compile("\"s3Key\":\"([^\"]+)\"").matcher(pointer.body());
      assertThat(key.find()).isTrue();
      String stored = s3.getObjectAsBytes(r -> r.bucket(bucket).key(key.group(1))).asUtf8String();
      assertThat(schema.validate(stored, InputFormat.JSON)).as(key.group(1)).isEmpty();
      JsonNode event = JSON.readTree(stored);
      String id = event.path("id").asText();
      assertThat(payloads).containsKey(id);
      assertThat(event.path("data")).isEqualTo(JSON.readTree(payloads.get(id)));

      List<InboundEvent> consumed = consume(queue, pointer, s3, bucket);
      assertThat(consumed)
          .singleElement()
          .satisfies(e -> assertThat(e.payload()).isEqualTo(payloads.get(e.eventId().toString())));
    }
  }

  @Test
  void anEventSourceThatIsNotAUriReference_failsStartUp_namingTheVariable() {
    Assertions.assertThatThrownBy(
            () ->
                bed.config(
                    "OUTBOX_MESSAGE_ENVELOPE", "cloudevents", "OUTBOX_EVENT_SOURCE", "shop events"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("OUTBOX_EVENT_SOURCE")
        .hasMessageContaining("URI reference");
  }

  @Test
  void theSchema_refusesWhatBreaksIt_soAValidBodyMeansSomething() {
    String noSource =
        "{\"specversion\":\"1.0\",\"id\":\"1\",\"type\":\"t\",\"time\":\"2026-03-01T10:00:00Z\"}";
    String badTime =
        "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"time\":\"yesterday\"}";
    List<Error> missing = schema.validate(noSource, InputFormat.JSON);
    List<Error> format = schema.validate(badTime, InputFormat.JSON);
    assertThat(missing).extracting(Error::getMessage).anyMatch(m -> m.contains("source"));
    assertThat(format).extracting(Error::getMessage).anyMatch(m -> m.contains("date-time"));
  }

  /**
   * CloudEvents attribute names are lower-case letters and digits, at most 20 characters: a rule of
   * the specification that its JSON schema does not check.
   */
  private static void assertExtensionNames(String body) throws Exception {
    JSON.readTree(body)
        .fieldNames()
        .forEachRemaining(
            name ->
                assertThat(name)
                    .as(body)
                    .matches(n -> n.equals("data") || n.matches("[a-z0-9]{1,20}")));
  }

  private List<InboundEvent> consume(String queue, Message message) {
    return consume(queue, message, null, null);
  }

  /** The message through an {@link SqsInboxConsumer} reading claim checks of {@code bucket}. */
  private List<InboundEvent> consume(
      String queue, Message message, S3Client s3Client, String bucket) {
    List<InboundEvent> seen = new CopyOnWriteArrayList<>();
    SqsInboxConsumer.Builder builder =
        SqsInboxConsumer.builder()
            .jdbi(bed.db.jdbi())
            .tables(bed.tables)
            .consumerName("ce-" + message.messageId())
            .handler((h, e) -> seen.add(e))
            .logOutput(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    if (s3Client != null) {
      builder.s3(s3Client).claimCheckLocation(AwsEndpoint.ACCOUNT, bucket, "outbox-payloads/");
    }
    String arn =
        "arn:aws:sqs:us-east-1:000000000000:" + queue.substring(queue.lastIndexOf('/') + 1);
    var response = builder.build().handle(SqsLambdaEvents.of(arn, "us-east-1", List.of(message)));
    assertThat(response.getBatchItemFailures()).as("nothing failed").isEmpty();
    return new ArrayList<>(seen);
  }

  private void subscribeWithEnvelope(String topicArn, String queueUrl) {
    String queueArn =
        bed.sqs
            .getQueueAttributes(r -> r.queueUrl(queueUrl).attributeNamesWithStrings("QueueArn"))
            .attributesAsStrings()
            .get("QueueArn");
    bed.sns.subscribe(r -> r.topicArn(topicArn).protocol("sqs").endpoint(queueArn));
  }

  private PollSummary invoke(String[] routes, String... more) {
    List<String> env = new ArrayList<>(List.of(routes));
    env.addAll(List.of("OUTBOX_MESSAGE_ENVELOPE", "cloudevents", "OUTBOX_EVENT_SOURCE", SOURCE));
    env.addAll(List.of(more));
    PollerConfig config = bed.config(env.toArray(String[]::new));
    return bed.invoke(bed.handler(config));
  }

  private static String[] routes(String queue, String topic) {
    return new String[] {
      "OUTBOX_ROUTES",
      JSON.createObjectNode()
          .put("reservation.created", queue)
          .put("reservation.confirmed", topic)
          .toString()
    };
  }

  private static Message only(List<Message> received) {
    assertThat(received).hasSize(1);
    return received.get(0);
  }
}
