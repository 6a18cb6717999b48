package dev.lambdaoutbox.consumer.internal;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse.BatchItemFailure;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.SQSMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a batch's records in order and builds the partial batch response SQS expects with {@code
 * ReportBatchItemFailures}: the ids of the records that failed, and nothing else, so only those
 * come back. On a FIFO queue the batch stops at the first failure and reports that record and every
 * later one: SQS must redeliver them in order, after the failed one.
 */
public final class PartialBatch {
  private PartialBatch() {}

  /** One record's processing; true when it succeeded. */
  @FunctionalInterface
  public interface RecordProcessor {
    boolean process(SQSMessage record);
  }

  /**
   * What became of a batch.
   *
   * @param response the failed (and, on FIFO, the unprocessed) records, for SQS
   * @param notAttempted FIFO only: the records after the first failure, never processed
   */
  public record Result(SQSBatchResponse response, List<SQSMessage> notAttempted) {}

  public static Result run(List<SQSMessage> records, RecordProcessor processor) {
    List<BatchItemFailure> failures = new ArrayList<>();
    List<SQSMessage> notAttempted = new ArrayList<>();
    List<SQSMessage> all = records == null ? List.of() : records;
    for (int i = 0; i < all.size(); i++) {
      SQSMessage record = all.get(i);
      if (processor.process(record)) {
        continue;
      }
      failures.add(new BatchItemFailure(record.getMessageId()));
      if (isFifo(record)) {
        for (SQSMessage later : all.subList(i + 1, all.size())) {
          failures.add(new BatchItemFailure(later.getMessageId()));
          notAttempted.add(later);
        }
        break;
      }
    }
    return new Result(new SQSBatchResponse(failures), notAttempted);
  }

  /** Whether the record came from a FIFO queue: its source ARN ends in {@code .fifo}. */
  static boolean isFifo(SQSMessage record) {
    String arn = record.getEventSourceArn();
    return arn != null && arn.endsWith(".fifo");
  }
}
