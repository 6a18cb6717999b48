package dev.lambdaoutbox.testing;

import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.amazonaws.services.lambda.runtime.events.SQSEvent.SQSMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The {@link SQSEvent} Lambda's SQS event source mapping builds from the messages of one {@code
 * ReceiveMessage} call: every record with its body, receipt handle, digests, system attributes
 * ({@code ApproximateReceiveCount}, {@code SentTimestamp}, on FIFO queues {@code MessageGroupId},
 * ...), message attributes, and the queue's ARN and region.
 */
public final class SqsLambdaEvents {
  private SqsLambdaEvents() {}

  public static SQSEvent of(String queueArn, String region, List<Message> messages) {
    SQSEvent event = new SQSEvent();
    event.setRecords(messages.stream().map(m -> record(queueArn, region, m)).toList());
    return event;
  }

  private static SQSMessage record(String queueArn, String region, Message m) {
    SQSMessage r = new SQSMessage();
    r.setMessageId(m.messageId());
    r.setReceiptHandle(m.receiptHandle());
    r.setBody(m.body());
    r.setMd5OfBody(m.md5OfBody());
    r.setMd5OfMessageAttributes(m.md5OfMessageAttributes());
    r.setAttributes(new LinkedHashMap<>(m.attributesAsStrings()));
    Map<String, SQSEvent.MessageAttribute> attributes = new LinkedHashMap<>();
    m.messageAttributes().forEach((name, value) -> attributes.put(name, attribute(value)));
    r.setMessageAttributes(attributes);
    r.setEventSource("aws:sqs");
    r.setEventSourceArn(queueArn);
    r.setAwsRegion(region);
    return r;
  }

  private static SQSEvent.MessageAttribute attribute(MessageAttributeValue value) {
    SQSEvent.MessageAttribute a = new SQSEvent.MessageAttribute();
    a.setDataType(value.dataType());
    a.setStringValue(value.stringValue());
    if (value.binaryValue() != null) {
      a.setBinaryValue(value.binaryValue().asByteBuffer());
    }
    return a;
  }
}
