package dev.lambdaoutbox.core;

import java.util.regex.Pattern;

/**
 * What counts as a destination: an SNS topic ARN ({@code
 * arn:aws:sns:us-east-1:123456789012:orders}, FIFO topics end in {@code .fifo}) or an SQS queue URL
 * ({@code https://sqs.us-east-1.amazonaws.com/123456789012/q}, or a local endpoint's {@code
 * http://127.0.0.1:4566/000000000000/q}).
 */
public final class Destinations {
  private static final Pattern SNS_TOPIC_ARN =
      Pattern.compile("arn:aws[a-z\\-]*:sns:[a-z0-9\\-]+:\\d{12}:[A-Za-z0-9_\\-]{1,256}(\\.fifo)?");
  private static final Pattern SQS_QUEUE_URL =
      Pattern.compile("https?://[^/\\s]+/\\d{12}/[A-Za-z0-9_\\-]{1,80}(\\.fifo)?");

  private Destinations() {}

  public static boolean isSnsTopicArn(String destination) {
    return SNS_TOPIC_ARN.matcher(destination).matches();
  }

  public static boolean isSqsQueueUrl(String destination) {
    return SQS_QUEUE_URL.matcher(destination).matches();
  }

  /** FIFO topics and queues need a message group id and a de-duplication id. */
  public static boolean isFifo(String destination) {
    return destination.endsWith(".fifo");
  }

  /** Null when {@code destination} is an SNS topic ARN or SQS queue URL, otherwise why not. */
  public static String problemWith(String destination) {
    if (destination == null || destination.isBlank()) {
      return "must not be blank";
    }
    if (isSnsTopicArn(destination) || isSqsQueueUrl(destination)) {
      return null;
    }
    return "'"
        + destination
        + "' is neither an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME) nor an SQS queue URL"
        + " (https://sqs.REGION.amazonaws.com/ACCOUNT/NAME)";
  }
}
