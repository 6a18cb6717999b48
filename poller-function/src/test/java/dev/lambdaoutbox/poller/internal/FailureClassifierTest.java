package dev.lambdaoutbox.poller.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sns.model.SnsException;
import software.amazon.awssdk.services.sqs.model.SqsException;

class FailureClassifierTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "Throttling",
        "ThrottlingException",
        "InternalError",
        "InternalFailure",
        "ServiceUnavailable",
        "KMSThrottling",
        "KmsThrottled",
        "RequestThrottled",
        "MissingFromResponse"
      })
  void entry_transientCodes_areRetried(String code) {
    Failure f = FailureClassifier.entry(code, "try later", false);

    assertThat(f.permanent()).isFalse();
    assertThat(f.code()).isEqualTo(code);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "NotFound",
        "NonExistentQueue",
        "QueueDoesNotExist",
        "AuthorizationError",
        "AccessDenied",
        "InvalidParameter",
        "InvalidParameterValue",
        "InvalidMessageContents",
        "KMSDisabled",
        "KMSInvalidState",
        "KMSNotFound",
        "KmsDisabled",
        "BatchEntryTooLong",
        "MESSAGE_TOO_LARGE",
        "NO_DESTINATION"
      })
  void entry_permanentCodes_areDeadLettered(String code) {
    assertThat(FailureClassifier.entry(code, "no", true).permanent()).isTrue();
  }

  @Test
  void entry_unknownCode_isRetried_whoeverIsAtFault() {
    assertThat(FailureClassifier.entry("SomethingNew", "?", true).permanent()).isFalse();
    assertThat(FailureClassifier.entry("SomethingNew", "?", false).permanent()).isFalse();
  }

  @Test
  void entry_sqsQueryPrefix_isStripped() {
    Failure f = FailureClassifier.entry("AWS.SimpleQueueService.NonExistentQueue", "gone", true);

    assertThat(f.code()).isEqualTo("NonExistentQueue");
    assertThat(f.permanent()).isTrue();
  }

  @Test
  void entry_keepsTheBrokersMessageAsReason() {
    Failure f = FailureClassifier.entry("InternalError", "we are on fire", false);

    assertThat(f.reason()).contains("we are on fire").contains("service fault");
  }

  @Test
  void call_topicNotFound_isPermanentWithCodeAndMessage() {
    SnsException notFound = snsError("NotFound", "Topic does not exist", 404);

    Failure f = FailureClassifier.call(notFound);

    assertThat(f.permanent()).isTrue();
    assertThat(f.brokerUnreachable()).isFalse();
    assertThat(f.code()).isEqualTo("NotFound");
    assertThat(f.reason()).contains("Topic does not exist").contains("404");
  }

  @Test
  void call_queueDoesNotExist_isPermanent() {
    SqsException gone =
        (SqsException)
            SqsException.builder()
                .awsErrorDetails(
                    AwsErrorDetails.builder()
                        .errorCode("AWS.SimpleQueueService.NonExistentQueue")
                        .errorMessage("The specified queue does not exist.")
                        .build())
                .statusCode(400)
                .build();

    assertThat(FailureClassifier.call(gone).permanent()).isTrue();
  }

  @Test
  void call_serverError_isTransientEvenWithAPermanentLookingCode() {
    assertThat(FailureClassifier.call(snsError("InvalidParameter", "odd", 500)).permanent())
        .isFalse();
    assertThat(FailureClassifier.call(snsError("Throttling", "slow down", 400)).permanent())
        .isFalse();
  }

  @Test
  void call_connectionRefused_isTransientAndMeansTheBrokerIsUnreachable() {
    SdkClientException refused =
        SdkClientException.builder()
            .message("Unable to execute HTTP request: Connection refused")
            .cause(new ConnectException("Connection refused"))
            .build();

    Failure f = FailureClassifier.call(refused);

    assertThat(f.permanent()).isFalse();
    assertThat(f.brokerUnreachable()).isTrue();
    assertThat(f.code()).isEqualTo(Codes.CONNECTION_ERROR);
    assertThat(f.reason()).contains("Connection refused");
  }

  @Test
  void call_timeout_isTransientAndMeansTheBrokerIsUnreachable() {
    Failure f =
        FailureClassifier.call(ApiCallTimeoutException.builder().message("took 10 s").build());

    assertThat(f.code()).isEqualTo(Codes.TIMEOUT);
    assertThat(f.permanent()).isFalse();
    assertThat(f.brokerUnreachable()).isTrue();
  }

  @Test
  void call_otherClientFailure_isTransient() {
    Failure f = FailureClassifier.call(SdkClientException.create("Unable to unmarshall response"));

    assertThat(f.permanent()).isFalse();
    assertThat(f.code()).isEqualTo(Codes.CLIENT_ERROR);
  }

  private static SnsException snsError(String code, String message, int status) {
    return (SnsException)
        SnsException.builder()
            .awsErrorDetails(
                AwsErrorDetails.builder().errorCode(code).errorMessage(message).build())
            .statusCode(status)
            .build();
  }
}
