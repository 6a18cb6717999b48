package dev.lambdaoutbox.poller.internal.publish;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sns.model.MessageAttributeValue;
import software.amazon.awssdk.services.sns.model.PublishBatchRequestEntry;
import software.amazon.awssdk.services.sns.model.PublishBatchResponse;
import software.amazon.awssdk.services.sns.model.PublishBatchResultEntry;

/** Publishes a batch to an SNS topic with {@code PublishBatch}. */
public final class SnsBatchSender implements BatchSender {
  private final SnsClient sns;

  public SnsBatchSender(SnsClient sns) {
    this.sns = Objects.requireNonNull(sns, "sns");
  }

  @Override
  public BatchResponse send(String topicArn, List<OutboundMessage> batch) {
    List<PublishBatchRequestEntry> entries = batch.stream().map(SnsBatchSender::entry).toList();
    PublishBatchResponse response =
        sns.publishBatch(r -> r.topicArn(topicArn).publishBatchRequestEntries(entries));
    Map<String, BatchResponse.EntryError> failed = new HashMap<>();
    for (BatchResultErrorEntry f : response.failed()) {
      failed.put(f.id(), new BatchResponse.EntryError(f.code(), f.message(), f.senderFault()));
    }
    return new BatchResponse(
        response.successful().stream().map(PublishBatchResultEntry::id).collect(Collectors.toSet()),
        failed);
  }

  private static PublishBatchRequestEntry entry(OutboundMessage m) {
    PublishBatchRequestEntry.Builder entry =
        PublishBatchRequestEntry.builder()
            .id(m.id().toString())
            .message(m.body())
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
