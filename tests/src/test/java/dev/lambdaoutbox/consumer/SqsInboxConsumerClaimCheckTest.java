package dev.lambdaoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.testing.EventSourceMapping;
import dev.lambdaoutbox.testing.S3Front;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.sns.model.MessageAttributeValue;

/**
 * Claim checks: messages whose body is AWS's payload-offloading pointer to an S3 object and whose
 * {@code ExtendedPayloadSize} attribute gives the payload's size, as the SQS and SNS Extended
 * Client Libraries (and the outbox poller's claim check) send them. On the test bed's S3, SQS and
 * SNS: the consumer hands the handler the object's text, sent to a queue directly and through SNS
 * with and without raw delivery; an object that is missing, or of another size, or a consumer
 * without an S3 client, fails the record, which comes back rather than being dropped. A pointer the
 * consumer must not follow (into a bucket or prefix it was not given, stating a size over its
 * maximum) fails without any read; an object larger than its pointer says is refused before its
 * body is read. What the consumer's S3 client sent and read is watched by an interceptor on that
 * real client ({@link S3Calls}), not by a stand-in; the new tests' clients reach S3 through an
 * {@link S3Front}, which refuses another owner's bucket as S3 does and LocalStack does not.
 */
class SqsInboxConsumerClaimCheckTest {
  private static final String POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer";

  /** The test bed's account, which owns its buckets. */
  private static final String OWNER = "000000000000";

  /** Where the consumers under test accept claim checks, in {@link #bucket}. */
  private static final String PREFIX = "claims/";

  /** 2 MiB of a 4-byte UTF-8 character (U+1F600), inside a JSON object. */
  private static final String LARGE_PAYLOAD =
      "{\"note\":\"" + "\uD83D\uDE00".repeat(512 * 1024) + "\"}";

  private static BrokerFixture broker;
  private static S3Client s3;
  private static String bucket;
  private static String otherBucket;
  private static ConsumerDatabase db;

  /** The consumers' way to S3: strict about the bucket owner, as S3 is and LocalStack is not. */
  private static S3Front front;

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
    otherBucket = bucket + "-other";
    s3.createBucket(r -> r.bucket(otherBucket));
    front = S3Front.to(broker.aws.endpoint());
    TestDatabase postgres = TestEndpoints.postgres();
    db = new ConsumerDatabase(postgres, "claims");
  }

  @AfterAll
  static void tearDown() {
    if (s3 != null) {
      for (String b : List.of(bucket, otherBucket)) {
        s3.listObjectsV2Paginator(r -> r.bucket(b)).contents().stream()
            .forEach(o -> s3.deleteObject(r -> r.bucket(b).key(o.key())));
        s3.deleteBucket(r -> r.bucket(b));
      }
      s3.close();
    }
    if (front != null) {
      front.close();
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
    String key = PREFIX + "missing-" + UUID.randomUUID();
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

  @Test
  @Timeout(120)
  void pointer_intoABucketTheConsumerWasNotGiven_failsTheRecordWithoutReadingIt() {
    assertForgedPointerRefusedUnread(otherBucket, PREFIX + "secret-" + UUID.randomUUID());
  }

  @Test
  @Timeout(120)
  void pointer_outsideTheConsumersPrefix_failsTheRecordWithoutReadingIt() {
    assertForgedPointerRefusedUnread(bucket, "elsewhere/" + UUID.randomUUID());
  }

  /**
   * A message whose pointer names an existing object outside the consumer's location fails at
   * ERROR, naming the pointer and the location, with no GetObject made.
   */
  private static void assertForgedPointerRefusedUnread(String objectBucket, String key) {
    String secret = "{\"secret\":true}";
    s3.putObject(r -> r.bucket(objectBucket).key(key), RequestBody.fromString(secret));
    String queue = broker.queue("claims-forged", 1);
    sendToQueue(queue, UUID.randomUUID(), pointer(objectBucket, key), secret);
    S3Calls calls = new S3Calls();
    Recording recording = new Recording("claims-forged-" + queue.hashCode(), calls.client());
    EventSourceMapping mapping = mapping(queue, recording);

    pollUntilReceived(mapping);

    assertThat(mapping.failuresReported()).isEqualTo(1);
    assertThat(recording.handled).isEmpty();
    assertThat(calls.gets).as("no GetObject for a pointer outside the location").hasValue(0);
    List<JsonNode> errors = recording.log.lines("ERROR");
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).path("message").asText())
        .contains("s3://" + objectBucket + "/" + key, "s3://" + bucket + "/" + PREFIX);
  }

  @Test
  @Timeout(120)
  void pointer_statingASizeOverTheConsumersMaximum_failsTheRecordWithoutReadingIt() {
    String key = store("{\"amount\":42}");
    String queue = broker.queue("claims-huge", 1);
    sendToQueue(queue, UUID.randomUUID(), pointer(bucket, key), 16L * 1024 * 1024);
    S3Calls calls = new S3Calls();
    Recording recording = new Recording("claims-huge", calls.client());
    EventSourceMapping mapping = mapping(queue, recording);

    pollUntilReceived(mapping);

    assertThat(mapping.failuresReported()).isEqualTo(1);
    assertThat(calls.gets).hasValue(0);
    assertThat(recording.log.lines("ERROR").get(0).path("message").asText())
        .contains("16777216", "16777215");
  }

  @Test
  @Timeout(120)
  void pointer_toAnObjectLargerThanItSays_isRefusedBeforeTheObjectsBodyIsRead() {
    byte[] large = new byte[8 * 1024 * 1024];
    java.util.Arrays.fill(large, (byte) 'x');
    String key = PREFIX + UUID.randomUUID();
    s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromBytes(large));
    String queue = broker.queue("claims-larger", 1);
    sendToQueue(queue, UUID.randomUUID(), pointer(bucket, key), "{\"amount\":42}");
    S3Calls calls = new S3Calls();
    Recording recording = new Recording("claims-larger", calls.client());
    EventSourceMapping mapping = mapping(queue, recording);

    pollUntilReceived(mapping);

    assertThat(mapping.failuresReported()).isEqualTo(1);
    assertThat(recording.handled).isEmpty();
    assertThat(calls.gets).hasValue(1);
    assertThat(calls.bodyBytesRead.get())
        .as("the object's 8 MiB body is not read: its Content-Length is checked first")
        .isLessThan(64 * 1024);
    assertThat(recording.log.lines("WARN").get(0).path("message").asText())
        .contains("holds " + large.length + " bytes", "says 13");
  }

  @Test
  @Timeout(120)
  void read_sendsTheExpectedBucketOwner_andAnotherOwnersBucketIsRefused() {
    String key = store("{\"amount\":42}");
    String queue = broker.queue("claims-owner", 2);
    UUID first = UUID.randomUUID();
    sendToQueue(queue, first, pointer(bucket, key), "{\"amount\":42}");
    S3Calls calls = new S3Calls();
    Recording right = new Recording("claims-owner", calls.client());
    pollUntilReceived(mapping(queue, right));
    assertThat(right.handled).containsOnlyKeys(first);
    assertThat(calls.expectedOwnerSent).isEqualTo(OWNER);

    UUID second = UUID.randomUUID();
    sendToQueue(queue, second, pointer(bucket, key), "{\"amount\":42}");
    S3Calls wrongCalls = new S3Calls();
    Recording wrong = new Recording("claims-owner-wrong", wrongCalls.client(), "111122223333");
    EventSourceMapping mapping = mapping(queue, wrong);
    pollUntilReceived(mapping);

    assertThat(wrongCalls.expectedOwnerSent).isEqualTo("111122223333");
    assertThat(mapping.failuresReported()).as("S3 refuses another owner's bucket").isEqualTo(1);
    assertThat(wrong.handled).isEmpty();
    assertThat(wrong.log.lines("WARN").get(0).path("message").asText()).contains("403");
  }

  /** A consumer on the test database that records the events its handler was given. */
  private static final class Recording {
    final String name;
    final CapturedLog log = new CapturedLog();
    final Map<UUID, InboundEvent> handled = new ConcurrentHashMap<>();
    final SqsInboxConsumer consumer;

    /** Accepting claim checks in {@link #bucket} under {@link #PREFIX}, owned by the test bed. */
    Recording(String name, S3Client s3) {
      this(name, s3, OWNER);
    }

    Recording(String name, S3Client s3, String bucketOwner) {
      this.name = name;
      SqsInboxConsumer.Builder builder =
          SqsInboxConsumer.builder()
              .jdbi(db.jdbi)
              .consumerName(name)
              .tables(db.tables)
              .logOutput(log.out)
              .handler((handle, event) -> handled.put(event.eventId(), event));
      if (s3 != null) {
        builder.s3(s3).claimCheckLocation(bucketOwner, bucket, PREFIX);
      }
      this.consumer = builder.build();
    }
  }

  /**
   * What a consumer's S3 client did, seen by an interceptor on the real client: the GetObject calls
   * it made, the bytes of object bodies it read, the expected bucket owner it sent.
   */
  private static final class S3Calls implements ExecutionInterceptor {
    final AtomicInteger gets = new AtomicInteger();
    final AtomicLong bodyBytesRead = new AtomicLong();
    volatile String expectedOwnerSent;

    /** An S3 client of the test bed's account, through {@link #front}. */
    S3Client client() {
      return broker
          .aws
          .configure(S3Client.builder())
          .endpointOverride(front.uri())
          .forcePathStyle(true)
          .httpClientBuilder(UrlConnectionHttpClient.builder())
          .overrideConfiguration(o -> o.addExecutionInterceptor(this))
          .build();
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      if (context.request() instanceof GetObjectRequest) {
        gets.incrementAndGet();
      }
    }

    @Override
    public void beforeTransmission(
        Context.BeforeTransmission context, ExecutionAttributes attributes) {
      SdkHttpRequest request = context.httpRequest();
      request
          .firstMatchingHeader("x-amz-expected-bucket-owner")
          .ifPresent(owner -> expectedOwnerSent = owner);
    }

    @Override
    public Optional<InputStream> modifyHttpResponseContent(
        Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
      return context
          .responseBody()
          .map(
              body ->
                  new FilterInputStream(body) {
                    @Override
                    public int read() throws IOException {
                      int b = super.read();
                      if (b >= 0) {
                        bodyBytesRead.incrementAndGet();
                      }
                      return b;
                    }

                    @Override
                    public int read(byte[] buffer, int offset, int length) throws IOException {
                      int n = super.read(buffer, offset, length);
                      if (n > 0) {
                        bodyBytesRead.addAndGet(n);
                      }
                      return n;
                    }
                  });
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
    String key = PREFIX + UUID.randomUUID();
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
    sendToQueue(queueUrl, id, body, payload.getBytes(StandardCharsets.UTF_8).length);
  }

  /** A pointer message whose size attribute says {@code size}. */
  private static void sendToQueue(String queueUrl, UUID id, String body, long size) {
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
            .stringValue(String.valueOf(size))
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
