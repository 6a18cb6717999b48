package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.PollerWakeUp;
import java.time.Duration;
import java.util.Objects;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;

/**
 * Sends a wake-up as Lambda's asynchronous {@code Invoke} of the poller function, with the event
 * {@link PollerWakeUp#EVENT}; a refusal becomes a {@link WakeUpFailedException} that says what to
 * change. Only this class touches the AWS SDK, which the library declares optional.
 */
public final class LambdaWakeUpSender implements WakeUpSender {
  private static final String SDK_CLASS = "software.amazon.awssdk.services.lambda.LambdaClient";
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

  private final LambdaClient client;
  private final boolean ownsClient;
  private final String functionName;

  private LambdaWakeUpSender(LambdaClient client, boolean ownsClient, String functionName) {
    this.client = Objects.requireNonNull(client, "client");
    this.ownsClient = ownsClient;
    this.functionName = Objects.requireNonNull(functionName, "functionName");
  }

  /** Over the application's client, which it keeps and closes. */
  public static LambdaWakeUpSender withClient(LambdaClient client, String functionName) {
    return new LambdaWakeUpSender(client, false, functionName);
  }

  /**
   * Over a client of its own, from the SDK's defaults, with no retries (the next commit's wake-up
   * is one) and a short call timeout.
   */
  public static LambdaWakeUpSender withDefaultClient(String functionName) {
    LambdaClient client =
        LambdaClient.builder()
            .overrideConfiguration(
                o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(CALL_TIMEOUT))
            .build();
    return new LambdaWakeUpSender(client, true, functionName);
  }

  /** Refuses, saying what to add, when the SDK's Lambda client is not on the classpath. */
  public static void requireSdk() {
    try {
      Class.forName(SDK_CLASS, false, LambdaWakeUpSender.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "PollerWaker needs the AWS SDK's Lambda client: add software.amazon.awssdk:lambda and an"
              + " SDK HTTP client such as software.amazon.awssdk:url-connection-client to your"
              + " dependencies",
          e);
    }
  }

  @Override
  public void send() {
    int status;
    try {
      status =
          client
              .invoke(
                  r ->
                      r.functionName(functionName)
                          .invocationType(InvocationType.EVENT)
                          .payload(SdkBytes.fromUtf8String(PollerWakeUp.EVENT)))
              .statusCode();
    } catch (AwsServiceException e) {
      throw new WakeUpFailedException(refusal(e), e);
    } catch (SdkException e) {
      throw new WakeUpFailedException(
          "Lambda could not be reached to invoke " + functionName + " (" + e.getMessage() + ")", e);
    }
    if (status != 202) {
      throw new WakeUpFailedException(
          "Lambda answered " + status + " to an asynchronous Invoke of " + functionName, null);
    }
  }

  /** What Lambda refused, and what to change. */
  private String refusal(AwsServiceException e) {
    String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    String what =
        "Lambda refused to invoke " + functionName + " (" + e.statusCode() + " " + code + ")";
    if (e.statusCode() == 404 || "ResourceNotFoundException".equals(code)) {
      return what
          + ": no such function; set the waker's functionName to the stack's WakeUpFunctionArn"
          + " output";
    }
    if (e.statusCode() == 403 || "AccessDeniedException".equals(code)) {
      return what
          + ": this application may not invoke it; deploy the stack with WakeUpInvokerRoleArn"
          + " naming the application's role";
    }
    if (e.statusCode() == 429) {
      return what + ": throttled, the poller's concurrency is taken";
    }
    return what;
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }
}
