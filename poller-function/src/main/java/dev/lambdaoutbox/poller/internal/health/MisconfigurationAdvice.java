package dev.lambdaoutbox.poller.internal.health;

import dev.lambdaoutbox.core.Destinations;

/** What an operator does about a destination that refuses every message, by error code. */
final class MisconfigurationAdvice {
  private MisconfigurationAdvice() {}

  /** The fix for {@code code} at {@code destination}, in one sentence. */
  static String fix(String destination, String code) {
    boolean topic = Destinations.isSnsTopicArn(destination);
    boolean bus = Destinations.isEventBusArn(destination);
    String what = topic ? "topic" : bus ? "event bus" : "queue";
    if (code.toUpperCase(java.util.Locale.ROOT).startsWith("KMS")) {
      return "enable the KMS key that encrypts the "
          + what
          + " "
          + destination
          + ", or grant the poller's role kms:GenerateDataKey and kms:Decrypt on it"
          + " (template parameters OutboxTopicKmsKey / PublishKmsKeyArns)";
    }
    return switch (code) {
      case "NotFound",
          "NotFoundException",
          "NonExistentQueue",
          "QueueDoesNotExist",
          "ResourceNotFoundException" ->
          "create the "
              + what
              + " "
              + destination
              + ", or correct OUTBOX_ROUTES / OUTBOX_DEFAULT_DESTINATION (or the events' own"
              + " destination) to name one that exists";
      case "AuthorizationError",
          "AuthorizationErrorException",
          "AccessDenied",
          "AccessDeniedException",
          "InvalidSecurity" ->
          "grant the poller's role "
              + (topic
                  ? "sns:Publish"
                  : bus ? "events:PutEvents and events:DescribeEventBus" : "sqs:SendMessage")
              + " on "
              + destination
              + (topic
                  ? " (template parameter PublishTopicArns)"
                  : bus ? " (PublishEventBusArns)" : " (PublishQueueArns)");
      case "NotAuthorizedForSourceException", "NotAuthorizedForDetailTypeException" ->
          "let the event bus "
              + destination
              + "'s resource policy accept the poller's events (Source OUTBOX_EVENT_SOURCE,"
              + " DetailType the event type)";
      case "InvalidClientTokenId",
          "UnrecognizedClientException",
          "SignatureDoesNotMatch",
          "MissingAuthenticationToken" ->
          "check the poller's AWS credentials and region";
      default ->
          "check that the "
              + what
              + " "
              + destination
              + " exists, is in the poller's region and account or allows it, and that the"
              + " poller may publish to it";
    };
  }
}
