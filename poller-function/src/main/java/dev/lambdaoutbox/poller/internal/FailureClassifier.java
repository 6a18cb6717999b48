package dev.lambdaoutbox.poller.internal;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * Decides whether a failed publish is worth retrying, from the error code SNS or SQS gave (for a
 * whole call or one batch entry) or from the exception a call threw.
 *
 * <p>The table below is the whole policy. A code not in it is transient when the broker says the
 * fault was its own ({@code SenderFault=false}, or an HTTP 5xx) and, to be safe, also when it says
 * the fault was ours: an unknown code is retried until {@code OUTBOX_MAX_RETRIES} runs out rather
 * than dead-lettered on first sight.
 */
public final class FailureClassifier {
  /** Error code to whether it is permanent (true) or transient (false). */
  static final Map<String, Boolean> CODES =
      Map.ofEntries(
          // Throttling and service trouble: try again later.
          Map.entry("Throttling", false),
          Map.entry("ThrottlingException", false),
          Map.entry("ThrottledException", false),
          Map.entry("RequestThrottled", false),
          Map.entry("RequestThrottledException", false),
          Map.entry("TooManyRequestsException", false),
          Map.entry("RequestLimitExceeded", false),
          Map.entry("InternalError", false),
          Map.entry("InternalFailure", false),
          Map.entry("InternalErrorException", false),
          Map.entry("ServiceUnavailable", false),
          Map.entry("ServiceUnavailableException", false),
          Map.entry("RequestTimeout", false),
          Map.entry("RequestTimeoutException", false),
          Map.entry("KMSThrottling", false),
          Map.entry("KMSThrottlingException", false),
          Map.entry("KmsThrottled", false),
          Map.entry("KMS.ThrottlingException", false),
          Map.entry("ExpiredToken", false),
          Map.entry("ExpiredTokenException", false),
          Map.entry("RequestExpired", false),
          Map.entry(
              "BatchRequestTooLong", false), // the batch, not the row: batched again next time
          // Our own failures that are worth another go.
          Map.entry(Codes.CONNECTION_ERROR, false),
          Map.entry(Codes.TIMEOUT, false),
          Map.entry(Codes.CLIENT_ERROR, false),
          Map.entry(Codes.MISSING_FROM_RESPONSE, false),
          // The destination does not exist.
          Map.entry("NotFound", true),
          Map.entry("NotFoundException", true),
          Map.entry("NonExistentQueue", true),
          Map.entry("QueueDoesNotExist", true),
          Map.entry("EndpointDisabled", true),
          // Not allowed.
          Map.entry("AuthorizationError", true),
          Map.entry("AuthorizationErrorException", true),
          Map.entry("AccessDenied", true),
          Map.entry("AccessDeniedException", true),
          Map.entry("InvalidSecurity", true),
          Map.entry("KMSAccessDenied", true),
          Map.entry("KmsAccessDenied", true),
          Map.entry("KMS.AccessDeniedException", true),
          // The message itself is unacceptable.
          Map.entry("InvalidParameter", true),
          Map.entry("InvalidParameterException", true),
          Map.entry("InvalidParameterValue", true),
          Map.entry("InvalidParameterValueException", true),
          Map.entry("ParameterValueInvalid", true),
          Map.entry("InvalidMessageContents", true),
          Map.entry("MessageTooLong", true),
          Map.entry("BatchEntryTooLong", true),
          Map.entry("UnsupportedOperation", true),
          Map.entry(Codes.MESSAGE_TOO_LARGE, true),
          Map.entry(Codes.NO_DESTINATION, true),
          Map.entry(Codes.INVALID_DESTINATION, true),
          // The encryption key cannot be used.
          Map.entry("KMSDisabled", true),
          Map.entry("KMSDisabledException", true),
          Map.entry("KmsDisabled", true),
          Map.entry("KMS.DisabledException", true),
          Map.entry("KMSInvalidState", true),
          Map.entry("KMSInvalidStateException", true),
          Map.entry("KmsInvalidState", true),
          Map.entry("KMS.KMSInvalidStateException", true),
          Map.entry("KMSNotFound", true),
          Map.entry("KMSNotFoundException", true),
          Map.entry("KmsNotFound", true),
          Map.entry("KMS.NotFoundException", true),
          Map.entry("KMSOptInRequired", true),
          Map.entry("KmsOptInRequired", true),
          Map.entry("KmsInvalidKeyUsage", true));

  private static final String SQS_QUERY_PREFIX = "AWS.SimpleQueueService.";

  private FailureClassifier() {}

  /** Whether {@code code} is known to be permanent; unknown codes are not. */
  public static boolean isPermanent(String code) {
    return Boolean.TRUE.equals(CODES.get(normalise(code)));
  }

  /** A failed batch entry ({@code failed()} of a batch response). */
  public static Failure entry(String code, String message, Boolean senderFault) {
    String normal = normalise(code);
    String reason =
        (message == null || message.isBlank() ? normal : message)
            + (Boolean.FALSE.equals(senderFault) ? " (service fault)" : "");
    return new Failure(normal, reason, isPermanent(normal), false);
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
      boolean permanent =
          !service.isThrottlingException() && service.statusCode() < 500 && isPermanent(code);
      return new Failure(code, message + " (HTTP " + service.statusCode() + ")", permanent, false);
    }
    if (error instanceof ApiCallTimeoutException
        || error instanceof ApiCallAttemptTimeoutException) {
      return new Failure(Codes.TIMEOUT, describe(error), false, true);
    }
    if (unreachable(error)) {
      return new Failure(Codes.CONNECTION_ERROR, describe(error), false, true);
    }
    if (error instanceof SdkClientException) {
      return Failure.transientFailure(Codes.CLIENT_ERROR, describe(error));
    }
    return Failure.transientFailure(
        Codes.CLIENT_ERROR, error.getClass().getSimpleName() + ": " + describe(error));
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
