package dev.lambdaoutbox.poller.internal.failure;

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
        "ThrottledException"
      })
  void entry_throttlingOrServiceCodes_spendNoRetry_whenOtherEntriesWentThrough(String code) {
    for (Boolean senderFault : new Boolean[] {true, false, null}) {
      Failure f = FailureClassifier.entry(code, "try later", senderFault);

      assertThat(f.permanent()).isFalse();
      assertThat(f.scope()).as(code).isEqualTo(Failure.Scope.DESTINATION_BUSY);
      assertThat(f.destinationDown()).isFalse();
      assertThat(f.code()).isEqualTo(code);
    }
  }

  @Test
  void throttlingCodes_areTheOnesTheServicesDocument_andNoOthers() {
    for (String code :
        new String[] {
          "Throttling",
          "ThrottlingException",
          "ThrottledException",
          "RequestThrottled",
          "AWS.SimpleQueueService.RequestThrottled",
          "KMSThrottlingException",
          "KmsThrottled"
        }) {
      assertThat(FailureClassifier.isThrottling(code)).as(code).isTrue();
      assertThat(FailureClassifier.entry(code, "slow down", null).throttled()).as(code).isTrue();
    }
    for (String code :
        new String[] {"InternalError", "InternalFailure", "ServiceUnavailable", "NotFound", "?"}) {
      assertThat(FailureClassifier.isThrottling(code)).as(code).isFalse();
    }
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
  void entry_permanentCodes_areDeadLettered_whenOtherEntriesWentThrough(String code) {
    Failure f = FailureClassifier.entry(code, "no", true);

    assertThat(f.permanent()).isTrue();
    assertThat(f.scope()).isEqualTo(Failure.Scope.MESSAGE);
  }

  /**
   * PutEvents' entry codes: the retryable ones (throttling, an internal failure) the bus's, for
   * now; its own; the bus's misconfiguration.
   */
  @Test
  void eventBridgeEntryCodes_areJudgedAsItsDocumentationSays() {
    assertThat(FailureClassifier.entry("InternalFailure", "later", null).scope())
        .isEqualTo(Failure.Scope.DESTINATION_BUSY);
    assertThat(FailureClassifier.entry("ThrottlingException", "later", null).scope())
        .isEqualTo(Failure.Scope.DESTINATION_BUSY);
    for (String own :
        new String[] {"MalformedDetail", "InvalidArgument", "DETAIL_NOT_A_JSON_OBJECT"}) {
      assertThat(FailureClassifier.isMessageLevel(own)).as(own).isTrue();
      assertThat(FailureClassifier.entry(own, "no", null).permanent()).as(own).isTrue();
    }
    for (String bus :
        new String[] {
          "AccessDeniedException",
          "NotAuthorizedForSourceException",
          "NotAuthorizedForDetailTypeException",
          "ResourceNotFoundException"
        }) {
      assertThat(FailureClassifier.isMessageLevel(bus)).as(bus).isFalse();
      assertThat(
              FailureClassifier.noneWentThrough(
                  java.util.List.of(FailureClassifier.entry(bus, "no", null))))
          .as(bus)
          .isEqualTo(Failure.Scope.DESTINATION_MISCONFIGURED);
    }
  }

  @Test
  void entry_unknownCode_isTheMessagesRetry_unlessTheServiceSaysItIsItsFault() {
    for (Boolean senderFault : new Boolean[] {true, null}) {
      Failure f = FailureClassifier.entry("SomethingNew", "?", senderFault);
      assertThat(f.permanent()).isFalse();
      assertThat(f.scope()).isEqualTo(Failure.Scope.MESSAGE);
    }
    Failure serviceFault = FailureClassifier.entry("SomethingNew", "?", false);
    assertThat(serviceFault.permanent()).isFalse();
    assertThat(serviceFault.scope()).isEqualTo(Failure.Scope.DESTINATION_BUSY);
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
  void call_topicNotFound_isTheDestinationMisconfigured_withCodeAndMessage() {
    SnsException notFound = snsError("NotFound", "Topic does not exist", 404);

    Failure f = FailureClassifier.call(notFound);

    assertThat(f.scope()).isEqualTo(Failure.Scope.DESTINATION_MISCONFIGURED);
    assertThat(f.code()).isEqualTo("NotFound");
    assertThat(f.reason()).contains("Topic does not exist").contains("404");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "AuthorizationError",
        "AccessDenied",
        "KMSDisabled",
        "KMSAccessDenied",
        "KMSNotFound",
        "KMSInvalidState",
        "KMSOptInRequired",
        "KmsDisabled",
        "KmsAccessDenied"
      })
  void call_accessAndKmsCodes_areTheDestinationMisconfigured(String code) {
    assertThat(FailureClassifier.call(snsError(code, "no", 403)).scope())
        .isEqualTo(Failure.Scope.DESTINATION_MISCONFIGURED);
  }

  @Test
  void call_queueDoesNotExist_isTheDestinationMisconfigured() {
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

    Failure f = FailureClassifier.call(gone);

    assertThat(f.scope()).isEqualTo(Failure.Scope.DESTINATION_MISCONFIGURED);
    assertThat(f.code()).isEqualTo("NonExistentQueue");
  }

  @Test
  void call_messageLevelCode_isAMessagesOwn_unlessItNamesTheDestination() {
    Failure bad = FailureClassifier.call(snsError("InvalidParameter", "Invalid attribute", 400));
    Failure arn =
        FailureClassifier.call(snsError("InvalidParameter", "Invalid parameter: TopicArn", 400));

    assertThat(bad.scope()).isEqualTo(Failure.Scope.MESSAGE);
    assertThat(bad.permanent()).isTrue();
    assertThat(arn.scope()).isEqualTo(Failure.Scope.DESTINATION_MISCONFIGURED);
  }

  @Test
  void call_serverErrorOrThrottling_isTheDestinationUnavailable_whateverTheCode() {
    assertThat(FailureClassifier.call(snsError("InvalidParameter", "odd", 500)).scope())
        .isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
    assertThat(FailureClassifier.call(snsError("Throttling", "slow down", 400)).scope())
        .isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
  }

  @Test
  void call_unknownCode_isTheDestinationUnavailable_neverAMessagesFailure() {
    assertThat(FailureClassifier.call(snsError("SomethingNew", "?", 400)).scope())
        .isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
  }

  @Test
  void call_connectionRefused_isTheDestinationUnavailable() {
    SdkClientException refused =
        SdkClientException.builder()
            .message("Unable to execute HTTP request: Connection refused")
            .cause(new ConnectException("Connection refused"))
            .build();

    Failure f = FailureClassifier.call(refused);

    assertThat(f.scope()).isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
    assertThat(f.code()).isEqualTo(Codes.CONNECTION_ERROR);
    assertThat(f.reason()).contains("Connection refused");
  }

  @Test
  void call_timeout_isTheDestinationUnavailable() {
    Failure f =
        FailureClassifier.call(ApiCallTimeoutException.builder().message("took 10 s").build());

    assertThat(f.code()).isEqualTo(Codes.TIMEOUT);
    assertThat(f.scope()).isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
  }

  @Test
  void call_otherClientFailure_isTheDestinationUnavailable() {
    Failure f = FailureClassifier.call(SdkClientException.create("Unable to unmarshall response"));

    assertThat(f.scope()).isEqualTo(Failure.Scope.DESTINATION_UNAVAILABLE);
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
