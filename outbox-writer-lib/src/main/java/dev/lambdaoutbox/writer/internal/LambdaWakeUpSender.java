package dev.lambdaoutbox.writer.internal;

import dev.lambdaoutbox.core.PollerWakeUp;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;

/**
 * Sends a wake-up as Lambda's asynchronous {@code Invoke} of the poller function, with the event
 * {@link PollerWakeUp#event} announcing the waker's quiet period; a refusal becomes a {@link
 * WakeUpFailedException} that says what to change ({@link Refusals}). Only this class touches the
 * AWS SDK, which the library declares optional. Every call it makes is {@code
 * lambda:InvokeFunction} on the one name it was given, which {@link WakeUpTarget} holds to the
 * poller's alias.
 */
public final class LambdaWakeUpSender implements WakeUpSender {
  private static final String SDK_CLASS = "software.amazon.awssdk.services.lambda.LambdaClient";
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);
  private static final System.Logger LOG = System.getLogger("dev.lambdaoutbox.writer.PollerWaker");

  private final LambdaClient client;
  private final boolean ownsClient;
  private final String functionName;
  private final SdkBytes event;

  private LambdaWakeUpSender(
      LambdaClient client, boolean ownsClient, String functionName, Duration quiet) {
    this.client = Objects.requireNonNull(client, "client");
    this.ownsClient = ownsClient;
    this.functionName = Objects.requireNonNull(functionName, "functionName");
    this.event = SdkBytes.fromUtf8String(PollerWakeUp.event(quiet));
  }

  /**
   * Over the application's client, which it keeps and closes.
   *
   * @param quiet the waker's quiet period, which each wake-up announces
   */
  public static LambdaWakeUpSender withClient(
      LambdaClient client, String functionName, Duration quiet) {
    return new LambdaWakeUpSender(client, false, functionName, quiet);
  }

  /**
   * Over a client of its own, from the SDK's defaults, with no retries (the next commit's wake-up
   * is one) and a short call timeout.
   */
  public static LambdaWakeUpSender withDefaultClient(String functionName, Duration quiet) {
    LambdaClient client =
        LambdaClient.builder()
            .overrideConfiguration(
                o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(CALL_TIMEOUT))
            .build();
    return new LambdaWakeUpSender(client, true, functionName, quiet);
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
    invoke(InvocationType.EVENT, 202);
  }

  /**
   * Proves the target before the first commit needs it: an {@code Invoke} with {@code DryRun},
   * which Lambda answers only when the function exists and the caller may invoke it, and which
   * builds the client's credentials and connection so that the first wake-up is as quick as the
   * next ones. Logs one line saying which.
   */
  public void check() {
    long started = System.nanoTime();
    try {
      invoke(InvocationType.DRY_RUN, 204);
      LOG.log(
          System.Logger.Level.INFO,
          "PollerWaker wakes "
              + functionName
              + ": Lambda accepted a DryRun invocation in "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
              + " ms (the function exists and this application may invoke it)");
    } catch (WakeUpFailedException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "PollerWaker cannot wake the poller yet: "
              + e.getMessage()
              + "; until this is fixed, committed rows wait for the poller's schedule");
    }
  }

  private void invoke(InvocationType type, int expected) {
    int status;
    try {
      status =
          client
              .invoke(r -> r.functionName(functionName).invocationType(type).payload(event))
              .statusCode();
    } catch (AwsServiceException e) {
      String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
      String message = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorMessage();
      throw new WakeUpFailedException(
          Refusals.describe(functionName, e.statusCode(), code, message), e);
    } catch (SdkException e) {
      throw new WakeUpFailedException(
          "Lambda could not be reached to invoke " + functionName + " (" + e.getMessage() + ")", e);
    }
    if (status != expected) {
      throw new WakeUpFailedException(
          "Lambda answered " + status + " to a " + type + " Invoke of " + functionName, null);
    }
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }
}
