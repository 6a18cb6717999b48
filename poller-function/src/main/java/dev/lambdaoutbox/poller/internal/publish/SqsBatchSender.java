package dev.lambdaoutbox.poller.internal.publish;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/** Sends a batch to an SQS queue with {@code SendMessageBatch}. */
public final class SqsBatchSender implements BatchSender {
  private final SqsClient sqs;

  public SqsBatchSender(SqsClient sqs) {
    this.sqs = Objects.requireNonNull(sqs, "sqs");
  }

  @Override
  public BatchResponse send(String queueUrl, List<OutboundMessage> batch) {
    List<SendMessageBatchRequestEntry> entries = batch.stream().map(SqsBatchSender::entry).toList();
    SendMessageBatchResponse response =
        sqs.sendMessageBatch(r -> r.queueUrl(queueUrl).entries(entries));
    Map<String, BatchResponse.EntryError> failed = new HashMap<>();
    for (BatchResultErrorEntry f : response.failed()) {
      failed.put(f.id(), new BatchResponse.EntryError(f.code(), f.message(), f.senderFault()));
    }
    return new BatchResponse(
        response.successful().stream()
            .map(SendMessageBatchResultEntry::id)
            .collect(Collectors.toSet()),
        failed);
  }

  private static SendMessageBatchRequestEntry entry(OutboundMessage m) {
    SendMessageBatchRequestEntry.Builder entry =
        SendMessageBatchRequestEntry.builder()
            .id(m.id().toString())
            .messageBody(m.body())
            .messageAttributes(attributes(m));
    if (m.fifo()) {
      entry.messageGroupId(m.messageGroupId()).messageDeduplicationId(m.deduplicationId());
    }
    return entry.build();
  }

  /** The message's String attributes, and a pointer's size as a Number attribute. */
  private static Map<String, MessageAttributeValue> attributes(OutboundMessage m) {
    Map<String, MessageAttributeValue> values = new HashMap<>();
    if (m.pointer() != null) {
      values.put(
          PayloadPointer.SIZE_ATTRIBUTE,
          MessageAttributeValue.builder()
              .dataType(PayloadPointer.SIZE_ATTRIBUTE_TYPE)
              .stringValue(Long.toString(m.pointer().sizeBytes()))
              .build());
    }
    m.attributes()
        .forEach(
            (name, value) ->
                values.put(
                    name,
                    MessageAttributeValue.builder().dataType("String").stringValue(value).build()));
    return values;
  }
}
