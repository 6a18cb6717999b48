package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.poller.internal.claimcheck.S3PayloadUploader;
import dev.lambdaoutbox.testing.S3Front;
import dev.lambdaoutbox.writer.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * An S3 brownout, on the test bed's PostgreSQL and SQS: the poller's uploads reach LocalStack's S3
 * through an {@link S3Front} that makes every request slow or fails it as S3 does (LocalStack's S3
 * cannot be made slow on demand, and a mock client would skip the SDK's own timeouts and retries).
 * The claims mix rows whose payload goes through the claim check (over a 1,000-byte threshold) with
 * small ones, on one queue; each invocation has 6 s, each call 1 s.
 *
 * <p>What must hold: the small rows of a claim are published whatever S3 does; the rows that need
 * S3 wait (no retry spent) and are not asked for again before their deferral ends; once S3 is back
 * they are published.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerClaimCheckBrownoutTest {
  private static final Duration INVOCATION = Duration.ofSeconds(6);

  private PollerTestBed bed;
  private S3Front front;
  private S3Client direct;
  private String bucket;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("cc_brownout");
    front = S3Front.to(bed.aws.endpoint());
    direct = bed.s3();
  }

  @AfterAll
  void stop() throws Exception {
    front.close();
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
    front.normal();
    bucket = bed.name("brownout").toLowerCase().replace('_', '-');
    direct.createBucket(r -> r.bucket(bucket));
  }

  @AfterEach
  void deleteBucket() {
    for (S3Object o : direct.listObjectsV2(r -> r.bucket(bucket)).contents()) {
      direct.deleteObject(r -> r.bucket(bucket).key(o.key()));
    }
    direct.deleteBucket(r -> r.bucket(bucket));
  }

  /**
   * Every upload hangs past its timeout: the six stored one after another would take the whole
   * invocation, and the claim's small rows would never be sent. They are sent; the large rows wait
   * for the probe interval, and a later invocation does not ask S3 for them again before it ends;
   * after the brownout they go out as pointers.
   */
  @Test
  void aSlowBucket_defersOnlyTheRowsThatNeedIt_andTheSmallRowsOfTheClaimArePublished() {
    String queue = bed.queue("brownout");
    List<OutboxEvent> large = append("big.stored", 6, 1_200);
    append("small.sent", 10, 0);
    front.delay(Duration.ofSeconds(3));

    PollSummary during = invoke(queue, "8");

    assertThat(during.published()).as("the small rows of the claim").isEqualTo(10);
    assertThat(during.deferred()).isEqualTo(6);
    assertThat(received(queue, 10)).allSatisfy(m -> assertThat(m.body()).doesNotStartWith("["));
    assertThat(front.puts()).as("one attempt each, all at once").isEqualTo(6);
    for (OutboxEvent e : large) {
      assertWaiting(e, "S3:ApiCallTimeoutException");
    }
    assertThat(bed.count(bed.tables.messages())).isEqualTo(6);

    // Still slow a minute later: new small rows go out; the waiting rows are not due yet.
    bed.clock.advance(Duration.ofSeconds(2));
    append("small.sent", 5, 0);
    PollSummary still = invoke(queue, "8");
    assertThat(still.published()).isEqualTo(5);
    assertThat(front.puts()).as("S3 not asked again before the deferral ends").isEqualTo(6);
    received(queue, 5);

    // S3 is back: the waiting rows are published as pointers.
    front.normal();
    bed.clock.advance(Duration.ofSeconds(5));
    PollSummary after = invoke(queue, "8");
    assertThat(after.published()).isEqualTo(6);
    assertThat(received(queue, 6)).allSatisfy(m -> assertThat(m.body()).startsWith("["));
    assertThat(direct.listObjectsV2(r -> r.bucket(bucket)).contents()).hasSize(6);
    assertThat(bed.count(bed.tables.messages())).isZero();
    assertThat(bed.count(bed.tables.deadLetters())).isZero();
  }

  /**
   * S3 answers 503 SlowDown: with two uploads at a time, the first two fail and the rest of the
   * claim's large rows are not attempted in that round (the bucket failed); all six wait, the small
   * rows are published.
   */
  @Test
  void aFailingBucket_isNotAskedForTheRestOfTheRound_andTheSmallRowsArePublished() {
    String queue = bed.queue("failing");
    List<OutboxEvent> large = append("big.stored", 6, 1_200);
    append("small.sent", 4, 0);
    front.fail(S3Front.S3Error.SLOW_DOWN);

    PollSummary summary = invoke(queue, "2");

    assertThat(summary.published()).isEqualTo(4);
    assertThat(summary.deferred()).isEqualTo(6);
    received(queue, 4);
    int notAttempted = 0;
    Set<Object> codes = new HashSet<>();
    for (OutboxEvent e : large) {
      Map<String, Object> row = assertWaiting(e, null);
      codes.add(row.get("last_error_code"));
      if (((String) row.get("last_error_reason")).contains("not attempted")) {
        notAttempted++;
      }
    }
    assertThat(notAttempted).as("after the first two failed").isEqualTo(4);
    // The SDK retries SlowDown until the call's timeout: the code is S3's or the timeout's.
    assertThat(codes).singleElement().isIn("S3:SlowDown", "S3:ApiCallTimeoutException");
  }

  /** A bucket slow but within the timeout: the uploads run side by side, and all is published. */
  @Test
  void aSlowButAnsweringBucket_storesThePayloadsSideBySide_andEverythingIsPublished() {
    String queue = bed.queue("slow");
    append("big.stored", 6, 1_200);
    append("small.sent", 4, 0);
    front.delay(Duration.ofMillis(600));

    PollSummary summary = invoke(queue, "8");

    assertThat(summary.published()).isEqualTo(10);
    assertThat(received(queue, 10)).filteredOn(m -> m.body().startsWith("[")).hasSize(6);
    assertThat(direct.listObjectsV2(r -> r.bucket(bucket)).contents()).hasSize(6);
  }

  // ---- helpers

  /** {@code count} events of {@code type}, payloads of about {@code bytes} (0: the default). */
  private List<OutboxEvent> append(String type, int count, int bytes) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      OutboxEvent.Builder event = event(type, type + "-" + i);
      if (bytes > 0) {
        event.payload("{\"i\":" + i + ",\"text\":\"" + "x".repeat(bytes) + "\"}");
      }
      events.add(event.build());
    }
    bed.append(events.toArray(OutboxEvent[]::new));
    return events;
  }

  /** One invocation of {@link #INVOCATION}, storing through the front, {@code uploads} at once. */
  private PollSummary invoke(String queue, String uploads) {
    PollerConfig config =
        bed.config(
            "OUTBOX_ROUTES",
            "{\"*\":\"" + queue + "\"}",
            "OUTBOX_CLAIM_CHECK_BUCKET",
            bucket,
            "OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES",
            "1000",
            "OUTBOX_PUBLISH_TIMEOUT_MS",
            "1000",
            "OUTBOX_SAFETY_MARGIN_MS",
            "500",
            "OUTBOX_LEASE_SECONDS",
            "10",
            "OUTBOX_PROBE_INTERVAL_MAX_MS",
            "5000",
            "OUTBOX_PUBLISH_CONCURRENCY",
            uploads);
    S3Client s3 = bed.s3(front.uri(), config.timing().publishTimeout());
    return bed.invoke(
        bed.handler(
            config, bed.store(config), bed.publisher(config), new S3PayloadUploader(() -> s3)),
        INVOCATION);
  }

  private List<Message> received(String queue, int expected) {
    List<Message> received = bed.receive(queue, expected);
    assertThat(received).hasSize(expected);
    return received;
  }

  /** The row waits for the bucket with {@code code} (null: any), its retry count untouched. */
  private Map<String, Object> assertWaiting(OutboxEvent e, String code) {
    Map<String, Object> row = bed.outboxRow(e.id());
    assertThat(row.get("status")).isEqualTo("PENDING");
    assertThat(((Number) row.get("retry_count")).intValue()).isZero();
    if (code != null) {
      assertThat(row.get("last_error_code")).isEqualTo(code);
    }
    assertThat((String) row.get("last_error_reason")).contains("no retry spent");
    return row;
  }
}
