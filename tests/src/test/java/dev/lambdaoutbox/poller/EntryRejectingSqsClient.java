package dev.lambdaoutbox.poller;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * A mock only for a failure no real part can be made to show: the real SqsClient, except that
 * {@code SendMessageBatch} holds back the entries {@code rejected} picks, sends the rest to the
 * real queue, and then adds the held-back entries to the REAL response's {@code failed()} list (or,
 * with {@code code} null, leaves them out of the response altogether).
 *
 * <p>The local endpoint (LocalStack) fails a single entry of a batch only for a body with
 * characters SQS does not allow ({@code InvalidMessageContents}); transient entry failures
 * (throttling, an internal error) and entries missing from both lists it never produces, and our
 * own size check stops oversized entries before they are sent. Real SQS does fail single entries
 * (with HTTP 200), and this is where careless publishers lose messages.
 */
final class EntryRejectingSqsClient implements SqsClient {
  private final SqsClient real;
  private final Predicate<SendMessageBatchRequestEntry> rejected;
  private final String code;
  private final boolean senderFault;

  EntryRejectingSqsClient(
      SqsClient real,
      Predicate<SendMessageBatchRequestEntry> rejected,
      String code,
      boolean senderFault) {
    this.real = Objects.requireNonNull(real, "real");
    this.rejected = rejected;
    this.code = code;
    this.senderFault = senderFault;
  }

  @Override
  public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
    List<SendMessageBatchRequestEntry> sent = new ArrayList<>();
    List<BatchResultErrorEntry> failed = new ArrayList<>();
    for (SendMessageBatchRequestEntry entry : request.entries()) {
      if (rejected.test(entry)) {
        failed.add(
            BatchResultErrorEntry.builder()
                .id(entry.id())
                .code(code)
                .senderFault(senderFault)
                .message("rejected by the test: " + code)
                .build());
      } else {
        sent.add(entry);
      }
    }
    SendMessageBatchResponse response =
        sent.isEmpty() // SQS refuses an empty batch as a whole; every entry was held back here
            ? SendMessageBatchResponse.builder().build()
            : real.sendMessageBatch(request.toBuilder().entries(sent).build());
    if (code == null) {
      return response;
    }
    List<BatchResultErrorEntry> allFailed = new ArrayList<>(response.failed());
    allFailed.addAll(failed);
    return response.toBuilder().failed(allFailed).build();
  }

  @Override
  public String serviceName() {
    return real.serviceName();
  }

  @Override
  public void close() {
    // The real client belongs to the test bed, which closes it.
  }
}
