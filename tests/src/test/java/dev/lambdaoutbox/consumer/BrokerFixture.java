package dev.lambdaoutbox.consumer;

import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Private SNS topics and SQS queues on the test bed's endpoint, deleted again on close (the
 * endpoint is shared and slows down as it fills).
 */
final class BrokerFixture implements AutoCloseable {
  final AwsEndpoint aws = TestEndpoints.aws();
  final SnsClient sns = aws.sns();
  final SqsClient sqs = aws.sqs();

  private final List<String> topics = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();

  String topic(String label) {
    String arn = sns.createTopic(r -> r.name(name(label))).topicArn();
    topics.add(arn);
    return arn;
  }

  /** A standard queue whose received messages come back after {@code visibilitySeconds}. */
  String queue(String label, int visibilitySeconds) {
    return queue(name(label), visibilitySeconds, Map.of());
  }

  /** A FIFO queue (no content-based de-duplication: the poller sets a de-duplication id). */
  String fifoQueue(String label, int visibilitySeconds) {
    return queue(
        name(label) + ".fifo",
        visibilitySeconds,
        Map.of(
            QueueAttributeName.FIFO_QUEUE, "true",
            QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false"));
  }

  private String queue(String name, int visibilitySeconds, Map<QueueAttributeName, String> extra) {
    Map<QueueAttributeName, String> attributes = new HashMap<>(extra);
    attributes.put(QueueAttributeName.VISIBILITY_TIMEOUT, String.valueOf(visibilitySeconds));
    String url = sqs.createQueue(r -> r.queueName(name).attributes(attributes)).queueUrl();
    queues.add(url);
    return url;
  }

  String arnOf(String queueUrl) {
    return sqs.getQueueAttributes(
            r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
        .attributes()
        .get(QueueAttributeName.QUEUE_ARN);
  }

  /**
   * Subscribes the queue to the topic: raw delivery, or SNS's JSON envelope around each message.
   */
  void subscribe(String topicArn, String queueUrl, boolean raw) {
    String queueArn = arnOf(queueUrl);
    sns.subscribe(
        r ->
            r.topicArn(topicArn)
                .protocol("sqs")
                .endpoint(queueArn)
                .attributes(Map.of("RawMessageDelivery", String.valueOf(raw))));
  }

  private static String name(String label) {
    return "consumer-"
        + label
        + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
  }

  @Override
  public void close() {
    topics.forEach(arn -> sns.deleteTopic(r -> r.topicArn(arn)));
    queues.forEach(url -> sqs.deleteQueue(r -> r.queueUrl(url)));
    sns.close();
    sqs.close();
  }
}
