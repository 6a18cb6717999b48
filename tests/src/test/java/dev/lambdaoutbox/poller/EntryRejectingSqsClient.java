package dev.lambdaoutbox.poller;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * A mock only for a failure no real part can be made to show: the real SqsClient, except that
 * {@code SendMessageBatch} holds back the entries {@code rejected} picks (given each entry's index
 * in its batch), sends the rest to the real queue, and then adds the held-back entries to the REAL
 * response's {@code failed()} list (or, with {@code code} null, leaves them out of the response
 * altogether).
 *
 * <p>The local endpoint (LocalStack) fails a single entry of a batch only for a body with
 * characters SQS does not allow ({@code InvalidMessageContents}); transient entry failures
 * (throttling, an internal error) and entries missing from both lists it never produces, and our
 * own size check stops oversized entries before they are sent; no real broker can be made to
 * throttle on demand. Real SQS does fail single entries (with HTTP 200), and this is where careless
 * publishers lose messages.
 *
 * <p>Each call is recorded ({@link #calls()}) with the time of the given clock, the entries the
 * real queue took and those held back.
 */
final class EntryRejectingSqsClient implements SqsClient {
  /** One {@code SendMessageBatch}: when, and how many entries went through or were held back. */
  record Call(Instant at, int sent, int rejected) {}

  private final SqsClient real;
  private final BiPredicate<Integer, SendMessageBatchRequestEntry> rejected;
  private final String code;
  private final boolean senderFault;
  private final Clock clock;
  private final List<Call> calls = new ArrayList<>();

  EntryRejectingSqsClient(
      SqsClient real,
      Predicate<SendMessageBatchRequestEntry> rejected,
      String code,
      boolean senderFault) {
    this(real, (index, entry) -> rejected.test(entry), code, senderFault, Clock.systemUTC());
  }

  EntryRejectingSqsClient(
      SqsClient real,
      BiPredicate<Integer, SendMessageBatchRequestEntry> rejected,
      String code,
      boolean senderFault,
      Clock clock) {
    this.real = Objects.requireNonNull(real, "real");
    this.rejected = rejected;
    this.code = code;
    this.senderFault = senderFault;
    this.clock = clock;
  }

  @Override
  public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
    Instant at = clock.instant();
    List<SendMessageBatchRequestEntry> sent = new ArrayList<>();
    List<BatchResultErrorEntry> failed = new ArrayList<>();
    List<SendMessageBatchRequestEntry> entries = request.entries();
    for (int i = 0; i < entries.size(); i++) {
      SendMessageBatchRequestEntry entry = entries.get(i);
      if (rejected.test(i, entry)) {
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
    synchronized (calls) {
      calls.add(new Call(at, sent.size(), failed.size()));
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

  /**
   * The most that {@code calls} (in the order made) within {@code window} of each other weigh
   * together: e.g. {@code Call::sent} for messages, {@code c -> 1} for calls.
   */
  static long mostWithin(List<Call> calls, Duration window, ToLongFunction<Call> weight) {
    long most = 0;
    for (int i = 0; i < calls.size(); i++) {
      Instant end = calls.get(i).at().plus(window);
      long within = 0;
      for (int j = i; j < calls.size() && calls.get(j).at().isBefore(end); j++) {
        within += weight.applyAsLong(calls.get(j));
      }
      most = Math.max(most, within);
    }
    return most;
  }

  /** The calls so far, in the order they were made. */
  List<Call> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
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
