package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.MessageSize;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
 * Events as a new user writes them, of the sizes applications send, delivered by the poller over
 * the Data API emulator, which refuses a row over 64 KB and a response over 1 MiB as the Data API
 * does: one large event must not stop the outbox, and every payload must arrive byte for byte,
 * 4-byte UTF-8 included. A mebibyte goes through the claim check.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LargeEventsDataApiTest {
  private PollerTestBed bed;
  private S3Client s3;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("large_dataapi");
    s3 =
        bed.aws
            .configure(S3Client.builder())
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .build();
  }

  @AfterAll
  void stop() throws Exception {
    s3.close();
    bed.close();
  }

  @BeforeEach
  void reset() {
    bed.reset();
  }

  @Test
  void eventsOfATenth_30_and100KB_andFourByteUtf8AtTheLimits_areAllDelivered_inThreeInvocations() {
    String queue = bed.queue("large");
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      events.add(sized("tenth-" + i, 100));
      events.add(sized("thirty-" + i, 30 * 1024));
      events.add(sized("hundred-" + i, 100 * 1024));
    }
    // Four bytes a character: just over a row of the Data API, and as large as SNS and SQS take.
    events.add(emoji("over-a-row", (64_000 / 4) + 10));
    events.add(emoji("at-the-limit", (MessageSize.MAX_BYTES - 1_024) / 4));
    bed.append(OutboxWriter.builder().tables(bed.tables).clock(bed.clock).build(), events);
    PollerConfig config = bed.config("OUTBOX_DEFAULT_DESTINATION", queue);

    int published = 0;
    for (int run = 0; run < 3; run++) {
      PollSummary summary =
          bed.invoke(bed.handler(config, bed.dataApiStore(), bed.publisher(config)));
      assertThat(summary.deadLettered() + summary.retried()).as("run %d", run).isZero();
      published += summary.published();
    }

    assertThat(published).isEqualTo(events.size());
    assertDelivered(bed.receive(queue, events.size()), events);
    assertThat(bed.count(bed.tables.messages())).isZero();
  }

  @Test
  void aMebibyteEvent_goesThroughTheClaimCheck_andItsObjectHoldsItByteForByte() {
    String bucket = bed.name("large").toLowerCase().replace('_', '-');
    s3.createBucket(r -> r.bucket(bucket));
    try {
      String queue = bed.queue("mebibyte");
      OutboxEvent ascii = sized("mebibyte", 1024 * 1024);
      OutboxEvent emoji = emoji("mebibyte-emoji", 1024 * 1024 / 4);
      bed.append(PollerClaimCheckContract.largePayloadWriter(bed), List.of(ascii, emoji));
      PollerConfig config =
          bed.config("OUTBOX_DEFAULT_DESTINATION", queue, "OUTBOX_CLAIM_CHECK_BUCKET", bucket);

      PollSummary summary =
          bed.invoke(bed.handler(config, bed.dataApiStore(), bed.publisher(config)));

      assertThat(summary.published()).isEqualTo(2);
      assertThat(bed.receive(queue, 2)).hasSize(2);
      for (OutboxEvent e : List.of(ascii, emoji)) {
        byte[] stored =
            s3.getObjectAsBytes(
                    r ->
                        r.bucket(bucket)
                            .key(PollerClaimCheckContract.key("outbox-payloads/", queue, e)))
                .asByteArray();
        assertThat(stored).isEqualTo(e.payload().getBytes(StandardCharsets.UTF_8));
      }
    } finally {
      for (S3Object o : s3.listObjectsV2(r -> r.bucket(bucket)).contents()) {
        s3.deleteObject(r -> r.bucket(bucket).key(o.key()));
      }
      s3.deleteBucket(r -> r.bucket(bucket));
    }
  }

  /** An event whose payload is about {@code bytes} bytes of ASCII JSON. */
  private static OutboxEvent sized(String aggregateId, int bytes) {
    String payload = "{\"id\":\"" + aggregateId + "\",\"blob\":\"" + "x".repeat(bytes - 40) + "\"}";
    return event("large.sized", aggregateId).payload(payload).build();
  }

  /** An event whose payload holds {@code chars} characters of four UTF-8 bytes each. */
  private static OutboxEvent emoji(String aggregateId, int chars) {
    String payload = "{\"blob\":\"" + "\uD83D\uDE00".repeat(chars) + "\"}";
    return event("large.emoji", aggregateId).payload(payload).build();
  }

  private static void assertDelivered(List<Message> received, List<OutboxEvent> events) {
    Map<UUID, String> bodies = new HashMap<>();
    for (Message m : received) {
      assertThat(bodies.put(UUID.fromString(PollerTestBed.attribute(m, "eventId")), m.body()))
          .as("delivered once")
          .isNull();
    }
    assertThat(bodies).hasSize(events.size());
    for (OutboxEvent e : events) {
      assertThat(bodies.get(e.id())).as(e.aggregateId()).isEqualTo(e.payload());
    }
  }
}
