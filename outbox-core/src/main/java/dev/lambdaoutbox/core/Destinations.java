package dev.lambdaoutbox.core;

import java.util.regex.Pattern;

/**
 * What counts as a destination: an SNS topic ARN ({@code
 * arn:aws:sns:us-east-1:123456789012:orders}, FIFO topics end in {@code .fifo}), an SQS queue URL
 * ({@code https://sqs.us-east-1.amazonaws.com/123456789012/q}, or a local endpoint's {@code
 * http://127.0.0.1:4566/000000000000/q}) or an EventBridge event bus ARN ({@code
 * arn:aws:events:us-east-1:123456789012:event-bus/orders}).
 */
public final class Destinations {
  private static final Pattern SNS_TOPIC_ARN =
      Pattern.compile("arn:aws[a-z\\-]*:sns:[a-z0-9\\-]+:\\d{12}:[A-Za-z0-9_\\-]{1,256}(\\.fifo)?");
  private static final Pattern SQS_QUEUE_URL =
      Pattern.compile("https?://[^/\\s]+/\\d{12}/[A-Za-z0-9_\\-]{1,80}(\\.fifo)?");

  /** A bus name: 1 to 256 of letters, digits, '.', '-', '_' and '/'. */
  private static final Pattern EVENT_BUS_ARN =
      Pattern.compile(
          "arn:aws[a-z\\-]*:events:[a-z0-9\\-]+:\\d{12}:event-bus/[A-Za-z0-9._\\-/]{1,256}");

  private Destinations() {}

  public static boolean isSnsTopicArn(String destination) {
    return SNS_TOPIC_ARN.matcher(destination).matches();
  }

  public static boolean isSqsQueueUrl(String destination) {
    return SQS_QUEUE_URL.matcher(destination).matches();
  }

  /** An EventBridge event bus: PutEvents, no message attributes, no order kept. */
  public static boolean isEventBusArn(String destination) {
    return EVENT_BUS_ARN.matcher(destination).matches();
  }

  /** FIFO topics and queues need a message group id and a de-duplication id. */
  public static boolean isFifo(String destination) {
    return destination.endsWith(".fifo") && !isEventBusArn(destination);
  }

  /**
   * Null when {@code destination} is an SNS topic ARN, an SQS queue URL or an EventBridge event bus
   * ARN, otherwise why not.
   */
  public static String problemWith(String destination) {
    if (destination == null || destination.isBlank()) {
      return "must not be blank";
    }
    if (isSnsTopicArn(destination) || isSqsQueueUrl(destination) || isEventBusArn(destination)) {
      return null;
    }
    return "'"
        + destination
        + "' is none of an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME), an SQS queue URL"
        + " (https://sqs.REGION.amazonaws.com/ACCOUNT/NAME) or an EventBridge event bus ARN"
        + " (arn:aws:events:REGION:ACCOUNT:event-bus/NAME)";
  }
}
