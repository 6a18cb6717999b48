package dev.lambdaoutbox.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse.BatchItemFailure;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.SQSMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PartialBatchTest {
  private static final String STANDARD = "arn:aws:sqs:us-east-1:123456789012:shop";
  private static final String FIFO = "arn:aws:sqs:us-east-1:123456789012:shop.fifo";

  @Test
  void run_onStandardQueue_reportsOnlyTheFailedRecordsAndProcessesAll() {
    List<String> processed = new ArrayList<>();

    PartialBatch.Result result =
        PartialBatch.run(batch(STANDARD, 10), failing(Set.of("m-2", "m-5"), processed));

    assertThat(failedIds(result)).containsExactly("m-2", "m-5");
    assertThat(result.notAttempted()).isEmpty();
    assertThat(processed).hasSize(10);
  }

  @Test
  void run_onFifoQueue_stopsAtTheFirstFailureAndReportsItAndEveryLaterRecord() {
    List<String> processed = new ArrayList<>();

    PartialBatch.Result result =
        PartialBatch.run(batch(FIFO, 10), failing(Set.of("m-4", "m-7"), processed));

    assertThat(failedIds(result)).containsExactly("m-4", "m-5", "m-6", "m-7", "m-8", "m-9", "m-10");
    assertThat(processed).containsExactly("m-1", "m-2", "m-3", "m-4");
    assertThat(result.notAttempted())
        .extracting(SQSMessage::getMessageId)
        .containsExactly("m-5", "m-6", "m-7", "m-8", "m-9", "m-10");
  }

  @Test
  void run_onFifoQueue_whenTheLastRecordFails_reportsOnlyIt() {
    PartialBatch.Result result =
        PartialBatch.run(batch(FIFO, 3), failing(Set.of("m-3"), new ArrayList<>()));

    assertThat(failedIds(result)).containsExactly("m-3");
    assertThat(result.notAttempted()).isEmpty();
  }

  @Test
  void run_whenEverythingSucceeds_reportsAnEmptyList() {
    PartialBatch.Result result =
        PartialBatch.run(batch(FIFO, 10), failing(Set.of(), new ArrayList<>()));

    assertThat(result.response().getBatchItemFailures()).isNotNull().isEmpty();
  }

  @Test
  void run_withNoRecords_reportsAnEmptyList() {
    assertThat(PartialBatch.run(null, r -> false).response().getBatchItemFailures()).isEmpty();
    assertThat(PartialBatch.run(List.of(), r -> false).response().getBatchItemFailures()).isEmpty();
  }

  @Test
  void isFifo_readsTheQueueArn() {
    assertThat(PartialBatch.isFifo(record("m", FIFO))).isTrue();
    assertThat(PartialBatch.isFifo(record("m", STANDARD))).isFalse();
    assertThat(PartialBatch.isFifo(record("m", null))).isFalse();
  }

  private static PartialBatch.RecordProcessor failing(Set<String> fail, List<String> processed) {
    return r -> {
      processed.add(r.getMessageId());
      return !fail.contains(r.getMessageId());
    };
  }

  private static List<String> failedIds(PartialBatch.Result result) {
    return result.response().getBatchItemFailures().stream()
        .map(BatchItemFailure::getItemIdentifier)
        .toList();
  }

  private static List<SQSMessage> batch(String arn, int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> record("m-" + i, arn)).toList();
  }

  private static SQSMessage record(String id, String arn) {
    SQSMessage m = new SQSMessage();
    m.setMessageId(id);
    m.setEventSourceArn(arn);
    return m;
  }
}
