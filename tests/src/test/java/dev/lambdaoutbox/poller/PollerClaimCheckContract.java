package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.claimcheck.S3PayloadUploader;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.S3Front;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The claim check on the test bed's LocalStack S3: a payload too large for its destination is
 * stored in the bucket under its destination's prefix, its event id and its digest, and the message
 * carries the payload-offloading libraries' pointer, byte for byte what they write, with the {@code
 * ExtendedPayloadSize} attribute. Tests of the bucket owner reach S3 through an {@link S3Front},
 * which refuses another owner's bucket as S3 does and LocalStack does not. One subclass per store:
 * PostgreSQL and MariaDB over JDBC, PostgreSQL over the Data API emulator, where the whole payload
 * is read in pieces that each fit its 64 KB a row.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PollerClaimCheckContract {
  /** 524,288 characters of four UTF-8 bytes each: 2 MiB of text, plus the JSON around it. */
  static final String TWO_MIB_PAYLOAD = "{\"blob\":\"" + "\uD83D\uDE00".repeat(512 * 1024) + "\"}";

  PollerTestBed bed;
  private S3Client s3;
  private final List<String> buckets = new ArrayList<>();

  abstract PollerTestBed bed();

  /** The store the poller under test runs on. */
  abstract OutboxStore store(PollerConfig config);

  @BeforeAll
  void start() {
    bed = bed();
    s3 = bed.s3();
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @AfterEach
  void deleteBuckets() {
    for (String bucket : buckets) {
      if (s3.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(bucket))) {
        continue;
      }
      for (S3Object o : s3.listObjectsV2(r -> r.bucket(bucket)).contents()) {
        s3.deleteObject(r -> r.bucket(bucket).key(o.key()));
      }
      s3.deleteBucket(r -> r.bucket(bucket));
    }
    buckets.clear();
  }

  @Test
  void twoMebibytePayloads_toAQueueAndATopic_arriveAsPointers_toObjectsHoldingThemByteForByte() {
    String bucket = bucket(true);
    String queue = bed.queue("cc-queue");
    String topic = bed.topic("cc-topic");
    String topicSink = bed.queue("cc-topic-sink");
    bed.subscribeRaw(topic, topicSink);
    OutboxEvent toQueue = event("big.queued", "q-1").payload(TWO_MIB_PAYLOAD).build();
    OutboxEvent toTopic = event("big.topical", "t-1").payload(TWO_MIB_PAYLOAD).build();
    append(toQueue, toTopic);
    long payloadBytes = TWO_MIB_PAYLOAD.getBytes(StandardCharsets.UTF_8).length;
    assertThat(payloadBytes).isGreaterThan(2L * 1024 * 1024);

    PollSummary summary = invoke(routes(queue, topic), "OUTBOX_CLAIM_CHECK_BUCKET", bucket);

    assertThat(summary.published()).isEqualTo(2);
    assertThat(summary.deadLettered() + summary.retried() + summary.deferred()).isZero();
    String queueKey = key("outbox-payloads/", queue, toQueue);
    String topicKey = key("outbox-payloads/", topic, toTopic);
    assertThat(queueKey)
        .startsWith("outbox-payloads/sqs/" + AwsEndpoint.ACCOUNT + "/" + name(queue) + "/");
    assertThat(topicKey)
        .startsWith("outbox-payloads/sns/" + AwsEndpoint.ACCOUNT + "/" + name(topic) + "/");
    assertPointer(only(bed.receive(queue, 1)), bucket, queueKey, toQueue.id(), payloadBytes);
    assertPointer(only(bed.receive(topicSink, 1)), bucket, topicKey, toTopic.id(), payloadBytes);
    for (String key : List.of(queueKey, topicKey)) {
      byte[] stored = s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asByteArray();
      assertThat(stored).isEqualTo(TWO_MIB_PAYLOAD.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  @Test
  void aReplayedEvent_writesTheSameObjectAgain_andItsMessagePointsToTheSameKey() {
    String bucket = bucket(true);
    String queue = bed.queue("cc-replay");
    OutboxEvent big = event("big.queued", "r-1").payload(TWO_MIB_PAYLOAD).build();
    append(big);
    String[] env = {"OUTBOX_CLAIM_CHECK_BUCKET", bucket, "OUTBOX_CLAIM_CHECK_PREFIX", "p/"};
    assertThat(invoke(routes(queue, queue), env).published()).isEqualTo(1);
    Message first = only(bed.receive(queue, 1));
    String key = key("p/", queue, big);
    // The object changed meanwhile (as by hand); a republish of the event restores it.
    s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromString("stale"));

    append(big); // the same event again, as a replay from the dead letters writes it
    assertThat(invoke(routes(queue, queue), env).published()).isEqualTo(1);

    Message second = only(bed.receive(queue, 1));
    assertThat(second.body()).isEqualTo(first.body()).contains("\"s3Key\":\"" + key + "\"");
    assertThat(s3.listObjectsV2(r -> r.bucket(bucket)).contents())
        .extracting(S3Object::key)
        .containsExactly(key);
    assertThat(s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String())
        .isEqualTo(TWO_MIB_PAYLOAD);
  }

  /**
   * Event ids are the application's to set: an id used again for another payload gets an object of
   * its own, so the message already sent for the first still finds its payload.
   */
  @Test
  void anEventIdUsedAgainForAnotherPayload_getsAnObjectOfItsOwn_theFirstMessageStillResolves()
      throws Exception {
    String bucket = bucket(true);
    String queue = bed.queue("cc-reused");
    OutboxEvent first = event("big.queued", "u-1").payload(TWO_MIB_PAYLOAD).build();
    append(first);
    assertThat(invoke(routes(queue, queue), "OUTBOX_CLAIM_CHECK_BUCKET", bucket).published())
        .isEqualTo(1);
    String otherPayload = TWO_MIB_PAYLOAD.replace("\"blob\"", "\"blub\"");
    OutboxEvent reused = event("big.queued", "u-2").id(first.id()).payload(otherPayload).build();
    append(reused);

    assertThat(invoke(routes(queue, queue), "OUTBOX_CLAIM_CHECK_BUCKET", bucket).published())
        .isEqualTo(1);

    List<Message> received = bed.receive(queue, 2);
    assertThat(received).hasSize(2);
    for (Message m : received) {
      String key = PollerTestBed.JSON.readTree(m.body()).get(1).get("s3Key").asText();
      String stored = s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String();
      assertThat(stored)
          .as("each message's object holds its own payload")
          .isEqualTo(
              PollerTestBed.attribute(m, "aggregateId").equals("u-1")
                  ? TWO_MIB_PAYLOAD
                  : otherPayload);
    }
    assertThat(s3.listObjectsV2(r -> r.bucket(bucket)).contents()).hasSize(2);
  }

  /**
   * Every upload says which account must own the bucket: through the S3 front (strict as S3 is), a
   * bucket owned by another account refuses it, and the row waits, no retry spent.
   */
  @Test
  void theUpload_sendsTheExpectedBucketOwner_andABucketOfAnotherOwnerMakesTheRowWait() {
    String bucket = bucket(true);
    String queue = bed.queue("cc-owner");
    OutboxEvent big = event("big.queued", "o-1").payload(TWO_MIB_PAYLOAD).build();
    append(big);
    try (S3Front front = S3Front.to(bed.aws.endpoint())) {
      PollSummary refused =
          invokeThrough(
              front,
              routes(queue, queue),
              "OUTBOX_CLAIM_CHECK_BUCKET",
              bucket,
              "OUTBOX_CLAIM_CHECK_BUCKET_OWNER",
              "111122223333");

      assertThat(refused.deferred()).isEqualTo(1);
      assertThat(front.puts()).isEqualTo(1);
      assertWaitsForTheBucket(big.id(), "S3:AccessDenied", bucket);
      assertThat(s3.listObjectsV2(r -> r.bucket(bucket)).contents()).isEmpty();

      bed.clock.advance(Duration.ofMinutes(2));
      PollSummary stored =
          invokeThrough(front, routes(queue, queue), "OUTBOX_CLAIM_CHECK_BUCKET", bucket);

      assertThat(stored.published()).isEqualTo(1);
      assertThat(s3.listObjectsV2(r -> r.bucket(bucket)).contents()).hasSize(1);
    }
  }

  @Test
  void aMissingBucket_makesTheRowWait_noRetrySpent_andItIsPublishedOnceTheBucketExists() {
    String bucket = bucket(false);
    String queue = bed.queue("cc-wait");
    OutboxEvent big = event("big.queued", "w-1").payload(TWO_MIB_PAYLOAD).build();
    append(big);
    String[] env = {"OUTBOX_CLAIM_CHECK_BUCKET", bucket, "OUTBOX_PROBE_INTERVAL_MAX_MS", "30000"};

    PollSummary first = invoke(routes(queue, queue), env);

    assertThat(first.published() + first.deadLettered() + first.retried()).isZero();
    assertThat(first.deferred()).isEqualTo(1);
    assertWaitsForTheBucket(big.id(), "S3:NoSuchBucket", bucket);
    assertThat(bed.logs("WARN"))
        .anySatisfy(l -> assertThat(l.toString()).contains(bucket).contains("NoSuchBucket"));

    s3.createBucket(r -> r.bucket(bucket));
    bed.clock.advance(Duration.ofSeconds(10));
    assertThat(invoke(routes(queue, queue), env).published()).as("not due yet").isZero();
    bed.clock.advance(Duration.ofSeconds(25));
    PollSummary second = invoke(routes(queue, queue), env);

    assertThat(second.published()).isEqualTo(1);
    assertPointer(
        only(bed.receive(queue, 1)),
        bucket,
        key("outbox-payloads/", queue, big),
        big.id(),
        TWO_MIB_PAYLOAD.getBytes(StandardCharsets.UTF_8).length);
  }

  /**
   * Within one claim (a payload over the threshold keeps the three rows in one claim on every
   * store, where a 2 MiB one is claimed alone under a byte budget).
   */
  @Test
  void onAFifoQueue_theEventsBehindOneWaitingForTheBucket_areHeldBack_notSentAheadOfIt() {
    String bucket = bucket(false);
    String queue = bed.fifoQueue("cc-fifo");
    OutboxEvent waiting =
        event("small.queued", "f-1").payload("{\"text\":\"" + "é".repeat(600) + "\"}").build();
    OutboxEvent behind = event("small.queued", "f-1").build();
    OutboxEvent otherAggregate = event("small.queued", "f-2").build();
    append(waiting, behind, otherAggregate);

    PollSummary summary =
        invoke(
            routes(queue, queue),
            "OUTBOX_CLAIM_CHECK_BUCKET",
            bucket,
            "OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES",
            "1000");

    assertThat(summary.claimed()).isEqualTo(3);
    assertThat(summary.deferred()).isEqualTo(1);
    assertThat(summary.heldBack()).isEqualTo(1);
    assertThat(summary.published()).isEqualTo(1);
    assertThat(bed.receive(queue, 1))
        .singleElement()
        .satisfies(m -> assertThat(m.body()).isEqualTo(otherAggregate.payload()));
    assertThat(bed.outboxRow(behind.id()).get("status")).isEqualTo("PENDING");
  }

  @Test
  void aPayloadOverTheThreshold_goesAsAPointer_evenWhereItsDestinationWouldTakeIt() {
    String bucket = bucket(true);
    String queue = bed.queue("cc-threshold");
    OutboxEvent small = event("small.queued", "s-1").build();
    OutboxEvent larger =
        event("small.queued", "s-2").payload("{\"text\":\"" + "é".repeat(600) + "\"}").build();
    append(small, larger);

    PollSummary summary =
        invoke(
            routes(queue, queue),
            "OUTBOX_CLAIM_CHECK_BUCKET",
            bucket,
            "OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES",
            "1000");

    assertThat(summary.published()).isEqualTo(2);
    List<Message> received = bed.receive(queue, 2);
    Message pointer =
        received.stream().filter(m -> m.body().startsWith("[")).findFirst().orElseThrow();
    assertPointer(pointer, bucket, key("outbox-payloads/", queue, larger), larger.id(), 1_211);
    assertThat(received)
        .filteredOn(m -> m.body().equals(small.payload()))
        .singleElement()
        .satisfies(m -> assertThat(m.messageAttributes()).doesNotContainKey("ExtendedPayloadSize"));
  }

  @Test
  void withoutABucket_aPayloadOverTheLimit_isDeadLetteredAsTooLarge_sayingABucketWouldCarryIt() {
    String queue = bed.queue("cc-none");
    OutboxEvent big = event("big.queued", "n-1").payload(TWO_MIB_PAYLOAD).build();
    append(big);

    PollSummary summary = invoke(routes(queue, queue));

    assertThat(summary.deadLettered()).isEqualTo(1);
    Map<String, Object> dead = bed.deadLetter(big.id());
    assertThat(dead.get("error_code")).isEqualTo("MESSAGE_TOO_LARGE");
    assertThat((String) dead.get("error_reason"))
        .contains(String.valueOf(TWO_MIB_PAYLOAD.getBytes(StandardCharsets.UTF_8).length))
        .contains("262144")
        .contains("claim-check bucket");
  }

  // ---- helpers

  /** A bucket name of this run, created when {@code create}; deleted after the test. */
  private String bucket(boolean create) {
    String name = bed.name("cc").toLowerCase().replace('_', '-');
    buckets.add(name);
    if (create) {
      s3.createBucket(r -> r.bucket(name));
    }
    return name;
  }

  private void append(OutboxEvent... events) {
    bed.append(largePayloadWriter(bed), List.of(events));
  }

  /** A writer on the bed's tables whose limit is raised for the claim check, to its ceiling. */
  static OutboxWriter largePayloadWriter(PollerTestBed bed) {
    return OutboxWriter.builder()
        .tables(bed.tables)
        .clock(bed.clock)
        .maxPayloadBytes(OutboxWriter.MAX_CLAIM_CHECK_PAYLOAD_BYTES)
        .build();
  }

  private static String[] routes(String queue, String topic) {
    return new String[] {
      "OUTBOX_ROUTES",
      "{\"big.queued\":\""
          + queue
          + "\",\"small.*\":\""
          + queue
          + "\",\"big.topical\":\""
          + topic
          + "\"}"
    };
  }

  private PollSummary invoke(String[] routes, String... more) {
    PollerConfig config = bed.config(concat(routes, more));
    return bed.invoke(bed.handler(config, store(config), bed.publisher(config)));
  }

  /** An invocation whose uploads reach S3 through {@code front}. */
  private PollSummary invokeThrough(S3Front front, String[] routes, String... more) {
    PollerConfig config = bed.config(concat(routes, more));
    S3Client client = bed.s3(front.uri(), config.timing().publishTimeout());
    return bed.invoke(
        bed.handler(
            config, store(config), bed.publisher(config), new S3PayloadUploader(() -> client)));
  }

  private static String[] concat(String[] first, String[] second) {
    String[] all = new String[first.length + second.length];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(second, 0, all, first.length, second.length);
    return all;
  }

  /**
   * Where the poller stores {@code event}'s payload for {@code destination}: under {@code prefix},
   * the destination's service, account and name, then the event id and the payload's SHA-256.
   */
  static String key(String prefix, String destination, OutboxEvent event) {
    boolean arn = destination.startsWith("arn:");
    String service = !arn ? "sqs" : destination.split(":")[2].equals("sns") ? "sns" : "events";
    String[] path = destination.split("/");
    String account = arn ? destination.split(":")[4] : path[path.length - 2];
    return prefix
        + service
        + "/"
        + account
        + "/"
        + name(destination)
        + "/"
        + event.id()
        + "-"
        + sha256(event.payload());
  }

  /** A topic's, queue's or bus's name. */
  static String name(String destination) {
    return destination.substring(
        Math.max(destination.lastIndexOf(':'), destination.lastIndexOf('/')) + 1);
  }

  private static String sha256(String text) {
    try {
      return java.util.HexFormat.of()
          .formatHex(
              java.security.MessageDigest.getInstance("SHA-256")
                  .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The row is pending with {@code code}, its retry count untouched, nothing dead-lettered. */
  void assertWaitsForTheBucket(UUID id, String code, String bucket) {
    Map<String, Object> row = bed.outboxRow(id);
    assertThat(row.get("status")).isEqualTo("PENDING");
    assertThat(((Number) row.get("retry_count")).intValue()).isZero();
    assertThat(row.get("last_error_code")).isEqualTo(code);
    assertThat((String) row.get("last_error_reason"))
        .contains("S3 bucket '" + bucket + "'")
        .contains("no retry spent");
    assertThat(bed.count(bed.tables.deadLetters())).isZero();
  }

  private static Message only(List<Message> received) {
    assertThat(received).hasSize(1);
    return received.get(0);
  }

  /** The message is the libraries' pointer to the event's object, with its size attribute. */
  private static void assertPointer(
      Message m, String bucket, String key, UUID id, long payloadBytes) {
    assertThat(m.body())
        .isEqualTo(
            "[\"software.amazon.payloadoffloading.PayloadS3Pointer\",{\"s3BucketName\":\""
                + bucket
                + "\",\"s3Key\":\""
                + key
                + "\"}]");
    MessageAttributeValue size = m.messageAttributes().get("ExtendedPayloadSize");
    assertThat(size).isNotNull();
    assertThat(size.dataType()).isEqualTo("Number");
    assertThat(size.stringValue()).isEqualTo(Long.toString(payloadBytes));
    assertThat(PollerTestBed.attribute(m, "eventId")).isEqualTo(id.toString());
  }
}
