package dev.lambdaoutbox.poller.internal.failure;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * Decides whose failure a failed publish is ({@link Failure.Scope}), from the error code SNS, SQS
 * or EventBridge gave (for a whole call or one entry) or from the exception a call threw:
 *
 * <ul>
 *   <li>a whole call that threw: a {@link Kind#DESTINATION} code, the destination (misconfigured);
 *       a {@link Kind#MESSAGE} code, some message of the batch (sent alone to find which); anything
 *       else, the destination unavailable;
 *   <li>a failed entry beside one that went through: a {@link Kind#MESSAGE} or {@link
 *       Kind#DESTINATION} code, the message's, permanent; throttling, a service fault or {@code
 *       SenderFault} false, the destination busy; an unknown code, the message's, transient;
 *   <li>a batch in which no entry went through is judged as a whole ({@link #noneWentThrough}).
 * </ul>
 *
 * <p>So only failures that belong to one message spend its retries. The throttling codes are those
 * the services document, and the KMS throttling codes they pass on for encrypted topics and queues.
 */
public final class FailureClassifier {
  /** What an error code says is wrong. */
  enum Kind {
    /** The service refuses the rate it is sent at, for now. */
    THROTTLING,
    /** The service or the transport, for now: internal errors, timeouts. */
    SERVICE,
    /** The destination, until an operator acts: it does not exist, access, its KMS key. */
    DESTINATION,
    /** The message itself is unacceptable. */
    MESSAGE
  }

  /** Error code to what it says; a code not listed is {@link Kind#SERVICE}. */
  static final Map<String, Kind> CODES =
      Map.ofEntries(
          // Throttling.
          Map.entry("Throttling", Kind.THROTTLING),
          Map.entry("ThrottlingException", Kind.THROTTLING),
          Map.entry("ThrottledException", Kind.THROTTLING),
          Map.entry("RequestThrottled", Kind.THROTTLING),
          Map.entry("RequestThrottledException", Kind.THROTTLING),
          Map.entry("TooManyRequestsException", Kind.THROTTLING),
          Map.entry("RequestLimitExceeded", Kind.THROTTLING),
          Map.entry("KMSThrottling", Kind.THROTTLING),
          Map.entry("KMSThrottlingException", Kind.THROTTLING),
          Map.entry("KmsThrottled", Kind.THROTTLING),
          Map.entry("KMS.ThrottlingException", Kind.THROTTLING),
          // Service trouble.
          Map.entry("InternalError", Kind.SERVICE),
          Map.entry("InternalFailure", Kind.SERVICE),
          Map.entry("InternalErrorException", Kind.SERVICE),
          Map.entry("ServiceUnavailable", Kind.SERVICE),
          Map.entry("ServiceUnavailableException", Kind.SERVICE),
          Map.entry("RequestTimeout", Kind.SERVICE),
          Map.entry("RequestTimeoutException", Kind.SERVICE),
          Map.entry("ExpiredToken", Kind.SERVICE),
          Map.entry("ExpiredTokenException", Kind.SERVICE),
          Map.entry("RequestExpired", Kind.SERVICE),
          // Our own codes for the transport.
          Map.entry(Codes.CONNECTION_ERROR, Kind.SERVICE),
          Map.entry(Codes.TIMEOUT, Kind.SERVICE),
          Map.entry(Codes.CLIENT_ERROR, Kind.SERVICE),
          Map.entry(Codes.MISSING_FROM_RESPONSE, Kind.SERVICE),
          // The destination does not exist.
          Map.entry("NotFound", Kind.DESTINATION),
          Map.entry("NotFoundException", Kind.DESTINATION),
          Map.entry("NonExistentQueue", Kind.DESTINATION),
          Map.entry("QueueDoesNotExist", Kind.DESTINATION),
          Map.entry("EndpointDisabled", Kind.DESTINATION),
          // Not allowed, or not who we say we are.
          Map.entry("AuthorizationError", Kind.DESTINATION),
          Map.entry("AuthorizationErrorException", Kind.DESTINATION),
          Map.entry("AccessDenied", Kind.DESTINATION),
          Map.entry("AccessDeniedException", Kind.DESTINATION),
          Map.entry("InvalidSecurity", Kind.DESTINATION),
          Map.entry("InvalidClientTokenId", Kind.DESTINATION),
          Map.entry("UnrecognizedClientException", Kind.DESTINATION),
          Map.entry("SignatureDoesNotMatch", Kind.DESTINATION),
          Map.entry("MissingAuthenticationToken", Kind.DESTINATION),
          Map.entry("KMSAccessDenied", Kind.DESTINATION),
          Map.entry("KMSAccessDeniedException", Kind.DESTINATION),
          Map.entry("KmsAccessDenied", Kind.DESTINATION),
          Map.entry("KMS.AccessDeniedException", Kind.DESTINATION),
          // The encryption key cannot be used.
          Map.entry("KMSDisabled", Kind.DESTINATION),
          Map.entry("KMSDisabledException", Kind.DESTINATION),
          Map.entry("KmsDisabled", Kind.DESTINATION),
          Map.entry("KMS.DisabledException", Kind.DESTINATION),
          Map.entry("KMSInvalidState", Kind.DESTINATION),
          Map.entry("KMSInvalidStateException", Kind.DESTINATION),
          Map.entry("KmsInvalidState", Kind.DESTINATION),
          Map.entry("KMS.KMSInvalidStateException", Kind.DESTINATION),
          Map.entry("KMSNotFound", Kind.DESTINATION),
          Map.entry("KMSNotFoundException", Kind.DESTINATION),
          Map.entry("KmsNotFound", Kind.DESTINATION),
          Map.entry("KMS.NotFoundException", Kind.DESTINATION),
          Map.entry("KMSOptInRequired", Kind.DESTINATION),
          Map.entry("KMSOptInRequiredException", Kind.DESTINATION),
          Map.entry("KmsOptInRequired", Kind.DESTINATION),
          Map.entry("KmsInvalidKeyUsage", Kind.DESTINATION),
          // EventBridge: the bus does not exist, is another account's, or its policy refuses.
          Map.entry("ResourceNotFoundException", Kind.DESTINATION),
          Map.entry("InvalidAccountIdException", Kind.DESTINATION),
          Map.entry("NotAuthorizedForSourceException", Kind.DESTINATION),
          Map.entry("NotAuthorizedForDetailTypeException", Kind.DESTINATION),
          // The message itself is unacceptable.
          Map.entry("InvalidParameter", Kind.MESSAGE),
          Map.entry("InvalidParameterException", Kind.MESSAGE),
          Map.entry("InvalidParameterValue", Kind.MESSAGE),
          Map.entry("InvalidParameterValueException", Kind.MESSAGE),
          Map.entry("ParameterValueInvalid", Kind.MESSAGE),
          Map.entry("InvalidMessageContents", Kind.MESSAGE),
          Map.entry("InvalidAttributeName", Kind.MESSAGE),
          Map.entry("InvalidAttributeValue", Kind.MESSAGE),
          Map.entry("MessageTooLong", Kind.MESSAGE),
          Map.entry("BatchEntryTooLong", Kind.MESSAGE),
          Map.entry("BatchRequestTooLong", Kind.MESSAGE),
          Map.entry("UnsupportedOperation", Kind.MESSAGE),
          // EventBridge: the entry's JSON or one of its fields.
          Map.entry("MalformedDetail", Kind.MESSAGE),
          Map.entry("InvalidArgument", Kind.MESSAGE),
          Map.entry("ValidationException", Kind.MESSAGE),
          Map.entry(Codes.DETAIL_NOT_A_JSON_OBJECT, Kind.MESSAGE),
          Map.entry(Codes.MESSAGE_TOO_LARGE, Kind.MESSAGE),
          Map.entry(Codes.NO_DESTINATION, Kind.MESSAGE),
          Map.entry(Codes.INVALID_DESTINATION, Kind.MESSAGE));

  private static final String SQS_QUERY_PREFIX = "AWS.SimpleQueueService.";

  private FailureClassifier() {}

  /** What {@code code} says is wrong; an unknown code is {@link Kind#SERVICE}. */
  static Kind kind(String code) {
    return CODES.getOrDefault(normalise(code), Kind.SERVICE);
  }

  /** Whether {@code code} says the service throttles: the send rate is to come down. */
  public static boolean isThrottling(String code) {
    return CODES.get(normalise(code)) == Kind.THROTTLING;
  }

  /**
   * A failed entry of a batch, as if another entry of the call went through: permanent for a code
   * of the message or the destination, the destination busy (no retry spent) for throttling, a
   * service failure or the service's own fault, the message's transient failure for a code nobody
   * knows. {@link #noneWentThrough} re-judges it when no entry went through.
   */
  public static Failure entry(String code, String message, Boolean senderFault) {
    String normal = normalise(code);
    boolean serviceFault = Boolean.FALSE.equals(senderFault);
    String reason =
        (message == null || message.isBlank() ? normal : message)
            + (serviceFault ? " (service fault)" : "");
    Kind kind = CODES.get(normal);
    if (kind == Kind.MESSAGE || kind == Kind.DESTINATION) {
      return Failure.permanent(normal, reason);
    }
    if (kind == Kind.THROTTLING || kind == Kind.SERVICE || serviceFault) {
      return Failure.destinationBusy(normal, reason);
    }
    return Failure.transientFailure(normal, reason);
  }

  /**
   * A batch call answered, and none of its entries went through: failures that belong to no one
   * message become the destination's. Entries failing with a message-level code keep their own
   * verdict; the others say the destination is misconfigured if any of them names it (not found,
   * access, KMS), unavailable otherwise (every one of them failed transiently).
   */
  public static Failure.Scope noneWentThrough(Iterable<Failure> failures) {
    boolean anyDestinationLevel = false;
    for (Failure f : failures) {
      if (kind(f.code()) == Kind.DESTINATION) {
        anyDestinationLevel = true;
      }
    }
    return anyDestinationLevel
        ? Failure.Scope.DESTINATION_MISCONFIGURED
        : Failure.Scope.DESTINATION_UNAVAILABLE;
  }

  /**
   * Whether {@code code} says the message itself is unacceptable: such a failure is always its
   * message's own, and dead-letters it at first sight.
   */
  public static boolean isMessageLevel(String code) {
    return kind(code) == Kind.MESSAGE;
  }

  /** A call that threw: a service error, a timeout, or a connection failure. */
  public static Failure call(Throwable error) {
    Objects.requireNonNull(error, "error");
    if (error instanceof AwsServiceException service) {
      String code =
          service.awsErrorDetails() != null && service.awsErrorDetails().errorCode() != null
              ? normalise(service.awsErrorDetails().errorCode())
              : "HTTP" + service.statusCode();
      String message =
          service.awsErrorDetails() != null && service.awsErrorDetails().errorMessage() != null
              ? service.awsErrorDetails().errorMessage()
              : String.valueOf(service.getMessage());
      String reason = message + " (HTTP " + service.statusCode() + ")";
      if (service.isThrottlingException() || service.statusCode() >= 500) {
        return Failure.destinationUnavailable(code, reason);
      }
      return switch (kind(code)) {
        case DESTINATION -> Failure.destinationMisconfigured(code, reason);
        case MESSAGE ->
            namesTheDestination(message)
                ? Failure.destinationMisconfigured(code, reason)
                : Failure.permanent(code, reason);
        case THROTTLING, SERVICE -> Failure.destinationUnavailable(code, reason);
      };
    }
    if (error instanceof ApiCallTimeoutException
        || error instanceof ApiCallAttemptTimeoutException) {
      return Failure.destinationUnavailable(Codes.TIMEOUT, describe(error));
    }
    if (unreachable(error)) {
      return Failure.destinationUnavailable(Codes.CONNECTION_ERROR, describe(error));
    }
    if (error instanceof SdkClientException) {
      return Failure.destinationUnavailable(Codes.CLIENT_ERROR, describe(error));
    }
    return Failure.destinationUnavailable(
        Codes.CLIENT_ERROR, error.getClass().getSimpleName() + ": " + describe(error));
  }

  /**
   * An invalid-parameter error about the topic or queue itself (SNS answers "Invalid parameter:
   * TopicArn" for an ARN of another region or account): the destination's, not a message's.
   */
  private static boolean namesTheDestination(String message) {
    String m = message.toLowerCase(Locale.ROOT);
    return m.contains("topicarn")
        || m.contains("queueurl")
        || m.contains("queue url")
        || m.contains("eventbusname")
        || m.contains("event bus");
  }

  /** True when a cause in the chain says the endpoint could not be reached or did not answer. */
  private static boolean unreachable(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof UnknownHostException
          || t instanceof NoRouteToHostException
          || t instanceof SocketTimeoutException
          || t instanceof SocketException
          || t instanceof InterruptedIOException) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable error) {
    StringBuilder text = new StringBuilder(String.valueOf(error.getMessage()));
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != error) {
      text.append(" (").append(root.getClass().getSimpleName()).append(": ");
      text.append(root.getMessage()).append(')');
    }
    return text.toString();
  }

  private static String normalise(String code) {
    if (code == null || code.isBlank()) {
      return "Unknown";
    }
    return code.startsWith(SQS_QUERY_PREFIX) ? code.substring(SQS_QUERY_PREFIX.length()) : code;
  }
}
