package dev.lambdaoutbox.reprocessor.internal.request;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.core.EventRules;
import dev.lambdaoutbox.reprocessor.InvalidRequestException;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.DeadLetterWaitingRequest;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RetargetRequest;

/**
 * The requests about rows waiting in the outbox for a destination that is down: {@code retarget}
 * (send them to another destination) and {@code deadLetter} (move them to the dead letters), each
 * naming the destination the rows wait for, with a dry run by default.
 */
final class WaitingRequests {
  private WaitingRequests() {}

  static RetargetRequest retarget(RequestFields root, String requestedBy) {
    String waitingFor = waitingFor(root);
    String destination = root.destination("destination");
    if (destination == null) {
      throw new InvalidRequestException(
          "destination",
          "is required: the SNS topic ARN or SQS queue URL the waiting rows go to instead");
    }
    if (destination.equals(waitingFor)) {
      throw new InvalidRequestException(
          "destination", "is the destination the rows wait for; name another one");
    }
    int limit =
        root.integer("limit", RequestParser.DEFAULT_WAITING_LIMIT, 1, RequestParser.MAX_IDS);
    Boolean dryRun = root.bool("dryRun");
    return new RetargetRequest(
        waitingFor,
        destination,
        limit,
        dryRun == null || dryRun,
        root.text("reason", RequestParser.MAX_REASON),
        requestedBy);
  }

  static DeadLetterWaitingRequest deadLetterWaiting(RequestFields root, String requestedBy) {
    String waitingFor = waitingFor(root);
    int limit =
        root.integer("limit", RequestParser.DEFAULT_WAITING_LIMIT, 1, RequestParser.MAX_IDS);
    Boolean dryRun = root.bool("dryRun");
    return new DeadLetterWaitingRequest(
        waitingFor,
        limit,
        dryRun == null || dryRun,
        root.text("reason", RequestParser.MAX_REASON),
        requestedBy);
  }

  /** The destination the rows to move wait for: required, a topic ARN or queue URL. */
  private static String waitingFor(RequestFields root) {
    String waitingFor = root.text("waitingFor", EventRules.MAX_DESTINATION_LENGTH);
    if (waitingFor == null) {
      throw new InvalidRequestException(
          "waitingFor",
          "is required: the destination the rows wait for, as action list shows it under"
              + " waiting.destinations");
    }
    String problem = Destinations.problemWith(waitingFor);
    if (problem != null) {
      throw new InvalidRequestException("waitingFor", problem);
    }
    return waitingFor;
  }
}
