package dev.lambdaoutbox.reprocessor.internal.action;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.reprocessor.ReplayDestinations;
import java.util.Objects;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.AuthorizationErrorException;
import software.amazon.awssdk.services.sns.model.NotFoundException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Checks a destination an operator sends events to instead of their own (a replay's {@code
 * destination}, a retarget's), before any row moves: it must be one {@link ReplayDestinations}
 * allows, and it must exist, as SNS ({@code GetTopicAttributes}) or SQS ({@code
 * GetQueueAttributes}, whose answer gives the queue's real ARN, checked against the list too) says.
 * Anything else refuses the request with an {@link InvalidRequestException} naming the field and
 * the destination, and nothing changes. The clients, supplied by the composition root, are built on
 * the first check: a request without a destination never loads them.
 */
public final class DestinationCheck {
  private final ReplayDestinations allowed;
  private final Supplier<SnsClient> snsSupplier;
  private final Supplier<SqsClient> sqsSupplier;
  private SnsClient sns;
  private SqsClient sqs;

  /**
   * @param sns builds the SNS client on the first check that needs it (a request without a
   *     destination never loads the SDK)
   * @param sqs builds the SQS client likewise
   */
  public DestinationCheck(
      ReplayDestinations allowed, Supplier<SnsClient> sns, Supplier<SqsClient> sqs) {
    this.allowed = Objects.requireNonNull(allowed, "allowed");
    this.snsSupplier = Objects.requireNonNull(sns, "sns");
    this.sqsSupplier = Objects.requireNonNull(sqs, "sqs");
  }

  /** With these clients (built by the caller, closed by it). */
  public DestinationCheck(ReplayDestinations allowed, SnsClient sns, SqsClient sqs) {
    this(allowed, () -> sns, () -> sqs);
  }

  /**
   * Refuses {@code destination}, as the request's {@code field}, unless it is allowed and exists.
   */
  public void check(String field, String destination) {
    String problem = Destinations.problemWith(destination);
    if (problem != null) {
      throw new InvalidRequestException(field, problem);
    }
    if (Destinations.isEventBusArn(destination)) {
      throw new InvalidRequestException(
          field,
          "'"
              + destination
              + "' is an EventBridge event bus; events are sent by hand to SNS topics and SQS"
              + " queues only. Route the event type to the bus (OUTBOX_ROUTES) and replay the"
              + " dead letter to its own destination instead");
    }
    String arn =
        allowed
            .arnOf(destination)
            .orElseThrow(
                () ->
                    new InvalidRequestException(
                        field,
                        "'"
                            + destination
                            + "': the region of this queue URL is neither in its host nor in"
                            + " AWS_REGION; write the queue's regional URL"
                            + " (https://sqs.REGION.amazonaws.com/ACCOUNT/NAME)"));
    requireAllowed(field, destination, arn);
    if (Destinations.isSnsTopicArn(destination)) {
      topicExists(field, destination);
    } else {
      requireAllowed(field, destination, queueArn(field, destination));
    }
  }

  private void requireAllowed(String field, String destination, String arn) {
    if (!allowed.allows(arn)) {
      throw new InvalidRequestException(
          field,
          "'"
              + destination
              + "'"
              + (arn.equals(destination) ? "" : " (" + arn + ")")
              + " is not a destination events may be sent to by hand: it is not in "
              + ReplayDestinations.VARIABLE
              + " ("
              + allowed
              + "). Choose one of those, or add it to the stack's ReplayDestinations parameter"
              + " (by default the topics and queues the poller may publish to) and deploy");
    }
  }

  private void topicExists(String field, String topicArn) {
    try {
      sns().getTopicAttributes(r -> r.topicArn(topicArn));
    } catch (NotFoundException e) {
      throw doesNotExist(field, topicArn, "SNS", e);
    } catch (AuthorizationErrorException e) {
      throw notReadable(field, topicArn, "sns:GetTopicAttributes", e);
    } catch (SdkException e) {
      throw notChecked(field, topicArn, e);
    }
  }

  /** The queue's ARN, as SQS gives it for the URL. */
  private String queueArn(String field, String queueUrl) {
    try {
      return sqs()
          .getQueueAttributes(
              r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
          .attributes()
          .get(QueueAttributeName.QUEUE_ARN);
    } catch (QueueDoesNotExistException e) {
      throw doesNotExist(field, queueUrl, "SQS", e);
    } catch (AwsServiceException e) {
      String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
      if (code != null
          && (code.endsWith("NonExistentQueue") || code.endsWith("QueueDoesNotExist"))) {
        throw doesNotExist(field, queueUrl, "SQS", e);
      }
      if (e.statusCode() == 403) {
        throw notReadable(field, queueUrl, "sqs:GetQueueAttributes", e);
      }
      throw notChecked(field, queueUrl, e);
    } catch (SdkException e) {
      throw notChecked(field, queueUrl, e);
    }
  }

  private static InvalidRequestException doesNotExist(
      String field, String destination, String service, SdkException e) {
    return new InvalidRequestException(
        field,
        "'"
            + destination
            + "' does not exist ("
            + service
            + " says "
            + errorCode(e)
            + "). Create it first, or choose one that exists");
  }

  private static InvalidRequestException notReadable(
      String field, String destination, String action, SdkException e) {
    return new InvalidRequestException(
        field,
        "'"
            + destination
            + "' could not be checked: the reprocessor may not read it ("
            + errorCode(e)
            + "); grant its role "
            + action
            + " on it (the stack does for ReplayDestinations)");
  }

  private static InvalidRequestException notChecked(
      String field, String destination, SdkException e) {
    return new InvalidRequestException(
        field,
        "'"
            + destination
            + "' could not be checked ("
            + errorCode(e)
            + ": "
            + e.getMessage()
            + "); send the request again");
  }

  private static String errorCode(SdkException e) {
    if (e instanceof AwsServiceException service && service.awsErrorDetails() != null) {
      return service.awsErrorDetails().errorCode();
    }
    return e.getClass().getSimpleName();
  }

  private synchronized SnsClient sns() {
    if (sns == null) {
      sns = snsSupplier.get();
    }
    return sns;
  }

  private synchronized SqsClient sqs() {
    if (sqs == null) {
      sqs = sqsSupplier.get();
    }
    return sqs;
  }
}
