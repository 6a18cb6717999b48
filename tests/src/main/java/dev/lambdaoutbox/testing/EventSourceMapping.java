package dev.lambdaoutbox.testing;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * What Lambda's SQS event source mapping with {@code ReportBatchItemFailures} does, against the
 * real SQS endpoint: receive up to 10 messages, invoke the function with them as an {@link
 * SQSEvent}, delete the ones the response does not name, and leave those it names to come back
 * after the queue's visibility timeout. An invocation may also be made to "time out": then nothing
 * is deleted and the whole batch comes back, as after a real timeout.
 */
public final class EventSourceMapping {
  private final SqsClient sqs;
  private final String queueUrl;
  private final String queueArn;
  private final String region;
  private final Function<SQSEvent, SQSBatchResponse> function;

  private int invocations;
  private int recordsDelivered;
  private int failuresReported;

  public EventSourceMapping(
      SqsClient sqs,
      String queueUrl,
      String queueArn,
      String region,
      Function<SQSEvent, SQSBatchResponse> function) {
    this.sqs = sqs;
    this.queueUrl = queueUrl;
    this.queueArn = queueArn;
    this.region = region;
    this.function = function;
  }

  /** Receives up to 10 messages (waiting up to a second). */
  public List<Message> receive() {
    return sqs.receiveMessage(
            r ->
                r.queueUrl(queueUrl)
                    .maxNumberOfMessages(10)
                    .waitTimeSeconds(1)
                    .messageAttributeNames("All")
                    .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
        .messages();
  }

  /** One poll: receive, invoke, delete what succeeded. Returns how many messages came. */
  public int poll() {
    return poll(false);
  }

  /**
   * One poll whose invocation does its work but then times out, so nothing is deleted. Returns how
   * many messages came.
   */
  public int pollAndTimeOut() {
    return poll(true);
  }

  private int poll(boolean timesOut) {
    List<Message> messages = receive();
    if (!messages.isEmpty()) {
      SQSBatchResponse response = invoke(messages);
      if (!timesOut) {
        deleteAllBut(messages, response);
      }
    }
    return messages.size();
  }

  /** Invokes the function with {@code messages}, as one batch, and counts what it reported. */
  public SQSBatchResponse invoke(List<Message> messages) {
    SQSBatchResponse response = function.apply(SqsLambdaEvents.of(queueArn, region, messages));
    invocations++;
    recordsDelivered += messages.size();
    failuresReported += response.getBatchItemFailures().size();
    return response;
  }

  /** Deletes the messages the response does not name as failed. */
  public void deleteAllBut(List<Message> messages, SQSBatchResponse response) {
    Set<String> failed = new HashSet<>();
    response.getBatchItemFailures().forEach(f -> failed.add(f.getItemIdentifier()));
    List<DeleteMessageBatchRequestEntry> done =
        messages.stream()
            .filter(m -> !failed.contains(m.messageId()))
            .map(
                m ->
                    DeleteMessageBatchRequestEntry.builder()
                        .id(m.messageId())
                        .receiptHandle(m.receiptHandle())
                        .build())
            .toList();
    if (!done.isEmpty()) {
      sqs.deleteMessageBatch(r -> r.queueUrl(queueUrl).entries(done));
    }
  }

  /** Invocations of the function so far. */
  public int invocations() {
    return invocations;
  }

  /** Records handed to the function so far, redeliveries included. */
  public int recordsDelivered() {
    return recordsDelivered;
  }

  /** Records the function reported as failed so far. */
  public int failuresReported() {
    return failuresReported;
  }
}
