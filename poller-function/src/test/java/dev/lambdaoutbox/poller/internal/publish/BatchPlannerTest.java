package dev.lambdaoutbox.poller.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.poller.internal.Rows;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BatchPlannerTest {
  private static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:orders";
  private static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/audit";
  private static final String BUS = "arn:aws:events:us-east-1:123456789012:event-bus/orders";
  private static final int SNS_LIMIT = 256 * 1024;
  private static final int MIB = 1024 * 1024;

  @Test
  void batches_ofTwentyFiveSmallMessages_areTenTenFiveInOrder() {
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      messages.add(Rows.message(TOPIC, 100));
    }

    List<List<OutboundMessage>> batches = BatchPlanner.batches(messages);

    assertThat(batches).extracting(List::size).containsExactly(10, 10, 5);
    assertThat(batches.stream().flatMap(List::stream).toList()).isEqualTo(messages);
  }

  @Test
  void batches_neverExceed256KiBInAll() {
    List<OutboundMessage> messages = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      messages.add(Rows.message(TOPIC, 60_000)); // four fit in 256 KiB, five do not
    }

    List<List<OutboundMessage>> batches = BatchPlanner.batches(messages);

    assertThat(batches).extracting(List::size).containsExactly(4, 4, 2);
    for (List<OutboundMessage> batch : batches) {
      assertThat(batch.stream().mapToInt(OutboundMessage::sizeBytes).sum())
          .isLessThanOrEqualTo(SNS_LIMIT);
    }
  }

  @Test
  void batches_aMessageOfExactly256KiB_goesAlone() {
    OutboundMessage small = Rows.message(TOPIC, 10);
    OutboundMessage probe = Rows.message(TOPIC, 1000);
    int overhead = probe.sizeBytes() - 1000;
    OutboundMessage full = Rows.message(TOPIC, SNS_LIMIT - overhead);
    assertThat(full.sizeBytes()).isEqualTo(SNS_LIMIT);
    assertThat(full.tooLarge()).isFalse();

    assertThat(BatchPlanner.batches(List.of(small, full, small)))
        .extracting(List::size)
        .containsExactly(1, 1, 1);
  }

  @Test
  void batches_refuseAMessageOverTheLimit() {
    OutboundMessage huge = Rows.message(TOPIC, SNS_LIMIT);
    assertThat(huge.tooLarge()).isTrue();

    assertThatThrownBy(() -> BatchPlanner.batches(List.of(huge)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(huge.id().toString());
  }

  @Test
  void batches_toAQueue_areCutAt1MiB_whereATopicsAreCutAt256KiB() {
    List<OutboundMessage> queued = new ArrayList<>();
    List<OutboundMessage> topical = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      queued.add(Rows.message(QUEUE, 200_000));
      topical.add(Rows.message(TOPIC, 200_000));
    }

    assertThat(BatchPlanner.batches(queued)).extracting(List::size).containsExactly(5, 5);
    assertThat(BatchPlanner.batches(topical)).extracting(List::size).hasSize(10).containsOnly(1);
    for (List<OutboundMessage> batch : BatchPlanner.batches(queued)) {
      assertThat(batch.stream().mapToInt(OutboundMessage::sizeBytes).sum())
          .isLessThanOrEqualTo(MIB);
    }
  }

  @Test
  void eventBusEntry_isMeasuredAsEventBridgeCountsIt_sourceDetailTypeDetailAndTime() {
    OutboundMessage m = Rows.message(BUS, 1000);
    String source = EventSource.DEFAULT;

    assertThat(m.kind()).isEqualTo(DestinationKind.EVENT_BUS);
    assertThat(m.sizeBytes()).isEqualTo(source.length() + "order.created".length() + 1000 + 14);
    assertThat(m.maxBytes())
        .as("an entry: what SNS and Step Functions take as a rule's targets, by default")
        .isEqualTo(256 * 1024);
    assertThat(m.batchMaxBytes()).as("a PutEvents call").isEqualTo(MIB);
  }

  @Test
  void aPayloadLongerThanTheOutboxCarries_isTooLarge_evenForAQueueThatWouldTakeIt() {
    OutboundMessage cut = Rows.message(QUEUE, SNS_LIMIT + 1);

    assertThat(cut.sizeBytes()).isLessThan(MIB);
    assertThat(cut.tooLarge()).isTrue();
    assertThat(cut.tooLargeReason()).contains("262144");
  }

  @Test
  void tooLargeReason_namesTheDestinationsLimit() {
    OutboundMessage overTopic = Rows.message(TOPIC, 262_000);

    assertThat(overTopic.tooLarge()).isTrue();
    assertThat(overTopic.tooLargeReason()).contains("SNS accepts at most 262144");
    assertThat(Rows.message(QUEUE, 262_000).tooLarge()).isFalse();
  }

  @Test
  void byDestination_keepsFirstSeenOrderOfDestinationsAndMessages() {
    OutboundMessage a = Rows.message(QUEUE, 10);
    OutboundMessage b = Rows.message(TOPIC, 10);
    OutboundMessage c = Rows.message(QUEUE, 10);

    Map<String, List<OutboundMessage>> groups = BatchPlanner.byDestination(List.of(a, b, c));

    assertThat(groups.keySet()).containsExactly(QUEUE, TOPIC);
    assertThat(groups.get(QUEUE)).containsExactly(a, c);
    assertThat(groups.get(TOPIC)).containsExactly(b);
  }
}
