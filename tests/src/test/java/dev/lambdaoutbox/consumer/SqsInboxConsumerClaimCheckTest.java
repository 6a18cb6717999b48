package dev.lambdaoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.testing.EventSourceMapping;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sns.model.MessageAttributeValue;

/**
 * Claim checks: messages whose body is AWS's payload-offloading pointer to an S3 object and whose
 * {@code ExtendedPayloadSize} attribute gives the payload's size, as the SQS and SNS Extended
 * Client Libraries (and the outbox poller's claim check) send them. On the test bed's S3, SQS and
 * SNS: the consumer hands the handler the object's text, sent to a queue directly and through SNS
 * with and without raw delivery; an object that is missing, or of another size, or a consumer
 * without an S3 client, fails the record, which comes back rather than being dropped.
 */
class SqsInboxConsumerClaimCheckTest {
  private static final String POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer";

  /** 2 MiB of a 4-byte UTF-8 character (U+1F600), inside a JSON object. */
  private static final String LARGE_PAYLOAD =
      "{\"note\":\"" + "\uD83D\uDE00".repeat(512 * 1024) + "\"}";

  private static BrokerFixture broker;
  private static S3Client s3;
  private static String bucket;
  private static ConsumerDatabase db;

  @BeforeAll
  static void setUp() {
    broker = new BrokerFixture();
    s3 =
        broker
            .aws
            .configure(S3Client.builder())
            .forcePathStyle(true)
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .build();
    bucket =
        "consumer-claims-"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    s3.createBucket(r -> r.bucket(bucket));
    TestDatabase postgres = TestEndpoints.postgres();
    db = new ConsumerDatabase(postgres, "claims");
  }

  @AfterAll
  static void tearDown() {
    if (s3 != null) {
      s3.listObjectsV2Paginator(r -> r.bucket(bucket)).contents().stream()
          .forEach(o -> s3.deleteObject(r -> r.bucket(bucket).key(o.key())));
      s3.deleteBucket(r -> r.bucket(bucket));
      s3.close();
    }
    if (db != null) {
      db.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  @Timeout(120)
  void pointer_sentToSqsAndThroughSnsRawAndEnveloped_handsTheHandlerThePayloadFromS3() {
    assertThat(LARGE_PAYLOAD.getBytes(StandardCharsets.UTF_8).length)
        .isEqualTo(2 * 1024 * 1024 + 11);
    String key = store(LARGE_PAYLOAD);
    String direct = broker.queue("claims-direct", 2);
    String raw = broker.queue("claims-raw", 2);
    String enveloped = broker.queue("claims-envelope", 2);
    String topic = broker.topic("claims");
    broker.subscribe(topic, raw, true);
    broker.subscribe(topic, enveloped, false);
    UUID sqsEvent = UUID.randomUUID();
    UUID snsEvent = UUID.randomUUID();
    sendToQueue(direct, sqsEvent, pointer(bucket, key), LARGE_PAYLOAD);
    publishToTopic(topic, snsEvent, pointer(bucket, key), LARGE_PAYLOAD);

    for (String queue : List.of(direct, raw, enveloped)) {
      Recording recording = new Recording("claims-" + queue.hashCode(), s3);
      EventSourceMapping mapping = mapping(queue, recording);
      int received = 0;
      for (int i = 0; i < 10 && received == 0; i++) {
        received = mapping.poll();
      }
      assertThat(received).as(queue).isEqualTo(1);
      assertThat(mapping.failuresReported()).as(queue).isZero();
      InboundEvent event = recording.handled.values().iterator().next();
      assertThat(event.eventId()).isEqualTo(queue.equals(direct) ? sqsEvent : snsEvent);
      assertThat(event.payload())
          .as(queue + ": the object's text, not the pointer")
          .isEqualTo(LARGE_PAYLOAD);
      assertThat(event.headers())
          .as(queue + ": the size attribute is the claim check's, not a header")
          .containsOnly(
              Map.entry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
      assertThat(db.inboxRows(recording.name)).isEqualTo(1);
    }
  }

  @Test
  @Timeout(120)
  void pointer_toMissingObject_failsTheRecord_andItIsAppliedOnceTheObjectIsThere() {
    String queue = broker.queue("claims-missing", 1);
    String key = "missing-" + UUID.randomUUID();
    String payload = "{\"amount\":42}";
    UUID id = UUID.randomUUID();
    sendToQueue(queue, id, pointer(bucket, key), payload);
    Recording recording = new Recording("claims-missing", s3);
    EventSourceMapping mapping = mapping(queue, recording);

    pollUntilReceived(mapping);
    assertThat(mapping.failuresReported()).as("reported as failed, left in the queue").isEqualTo(1);
    assertThat(recording.handled).isEmpty();
    List<JsonNode> warnings = recording.log.lines("WARN");
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).path("message").asText())
        .contains("bucket " + bucket, "key " + key, "404", "SQS delivers it again");

    s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromString(payload));
    pollUntilReceived(mapping);
    assertThat(mapping.failuresReported()).as("the second delivery went through").isEqualTo(1);
    assertThat(recording.handled).containsOnlyKeys(id);
    assertThat(recording.handled.get(id).payload()).isEqualTo(payload);
  }

  @Test
  @Timeout(120)
  void pointer_toObjectOfAnotherSize_failsTheRecord() {
    String queue = broker.queue("claims-size", 1);
    String key = store("{\"amount\":42}");
    sendToQueue(queue, UUID.randomUUID(), pointer(bucket, key), "{\"amount\":4200}");
    Recording recording = new Recording("claims-size", s3);
    EventSourceMapping mapping = mapping(queue, recording);

    pollUntilReceived(mapping);
    assertThat(mapping.failuresReported()).isEqualTo(1);
    assertThat(recording.handled).isEmpty();
    assertThat(recording.log.lines("WARN").get(0).path("message").asText())
        .contains("key " + key, "holds 13 bytes", "says 15");
  }

  @Test
  @Timeout(120)
  void pointer_withoutS3Client_failsTheRecordNamingBucketAndKey_andLeavesItInTheQueue() {
    String queue = broker.queue("claims-nos3", 1);
    String key = store("{\"amount\":42}");
    UUID id = UUID.randomUUID();
    sendToQueue(queue, id, pointer(bucket, key), "{\"amount\":42}");
    Recording recording = new Recording("claims-nos3", null);
    EventSourceMapping mapping = mapping(queue, recording);

    pollUntilReceived(mapping);
    assertThat(mapping.failuresReported()).isEqualTo(1);
    assertThat(recording.handled).isEmpty();
    List<JsonNode> errors = recording.log.lines("ERROR");
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).path("message").asText())
        .contains("bucket " + bucket, "key " + key, "no S3 client", ".s3(S3Client)");
    pollUntilReceived(mapping);
    assertThat(mapping.recordsDelivered()).as("it came back").isEqualTo(2);
  }

  /** A consumer on the test database that records the events its handler was given. */
  private static final class Recording {
    final String name;
    final CapturedLog log = new CapturedLog();
    final Map<UUID, InboundEvent> handled = new ConcurrentHashMap<>();
    final SqsInboxConsumer consumer;

    Recording(String name, S3Client s3) {
      this.name = name;
      SqsInboxConsumer.Builder builder =
          SqsInboxConsumer.builder()
              .jdbi(db.jdbi)
              .consumerName(name)
              .tables(db.tables)
              .logOutput(log.out)
              .handler((handle, event) -> handled.put(event.eventId(), event));
      if (s3 != null) {
        builder.s3(s3);
      }
      this.consumer = builder.build();
    }
  }

  private static EventSourceMapping mapping(String queueUrl, Recording recording) {
    return new EventSourceMapping(
        broker.sqs,
        queueUrl,
        broker.arnOf(queueUrl),
        broker.aws.region(),
        recording.consumer::handle);
  }

  private static void pollUntilReceived(EventSourceMapping mapping) {
    for (int i = 0; i < 20; i++) {
      if (mapping.poll() > 0) {
        return;
      }
    }
    throw new AssertionError("nothing arrived in 20 polls");
  }

  private static String store(String payload) {
    String key = UUID.randomUUID().toString();
    s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromString(payload));
    return key;
  }

  /** The body AWS's payload-offloading library writes for an object. */
  private static String pointer(String bucket, String key) {
    return "[\""
        + POINTER_CLASS
        + "\",{\"s3BucketName\":\""
        + bucket
        + "\",\"s3Key\":\""
        + key
        + "\"}]";
  }

  private static Map<String, String> outboxAttributes(UUID id) {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("eventId", id.toString());
    attributes.put("eventType", "note.written");
    attributes.put("aggregateType", "note");
    attributes.put("aggregateId", "note-1");
    attributes.put("occurredAt", Instant.parse("2026-01-02T03:04:05.123456Z").toString());
    attributes.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    return attributes;
  }

  private static void sendToQueue(String queueUrl, UUID id, String body, String payload) {
    Map<String, software.amazon.awssdk.services.sqs.model.MessageAttributeValue> attributes =
        new LinkedHashMap<>();
    outboxAttributes(id)
        .forEach(
            (k, v) ->
                attributes.put(
                    k,
                    software.amazon.awssdk.services.sqs.model.MessageAttributeValue.builder()
                        .dataType("String")
                        .stringValue(v)
                        .build()));
    attributes.put(
        "ExtendedPayloadSize",
        software.amazon.awssdk.services.sqs.model.MessageAttributeValue.builder()
            .dataType("Number")
            .stringValue(String.valueOf(payload.getBytes(StandardCharsets.UTF_8).length))
            .build());
    broker.sqs.sendMessage(
        r -> r.queueUrl(queueUrl).messageBody(body).messageAttributes(attributes));
  }

  private static void publishToTopic(String topicArn, UUID id, String body, String payload) {
    Map<String, MessageAttributeValue> attributes = new LinkedHashMap<>();
    outboxAttributes(id)
        .forEach(
            (k, v) ->
                attributes.put(
                    k, MessageAttributeValue.builder().dataType("String").stringValue(v).build()));
    attributes.put(
        "ExtendedPayloadSize",
        MessageAttributeValue.builder()
            .dataType("Number")
            .stringValue(String.valueOf(payload.getBytes(StandardCharsets.UTF_8).length))
            .build());
    broker.sns.publish(r -> r.topicArn(topicArn).message(body).messageAttributes(attributes));
  }
}
