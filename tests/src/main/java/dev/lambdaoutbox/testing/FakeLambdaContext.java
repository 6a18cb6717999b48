package dev.lambdaoutbox.testing;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * The invocation context Lambda passes a handler, for calling handlers in-process: a fresh request
 * id, no Cognito identity, and remaining time that runs down in real time from the timeout (or, on
 * a test's clock, as that clock moves).
 */
public final class FakeLambdaContext implements Context {
  private final String functionName;
  private final String requestId = UUID.randomUUID().toString();
  private final LongSupplier remainingMillis;

  public FakeLambdaContext(String functionName, Duration timeout) {
    this.functionName = functionName;
    long deadlineNanos = System.nanoTime() + timeout.toNanos();
    this.remainingMillis = () -> (deadlineNanos - System.nanoTime()) / 1_000_000;
  }

  /** Remaining time that runs down only as {@code clock} moves (a test's hand-moved clock). */
  public FakeLambdaContext(String functionName, Duration timeout, Clock clock) {
    this.functionName = functionName;
    Instant deadline = clock.instant().plus(timeout);
    this.remainingMillis = () -> Duration.between(clock.instant(), deadline).toMillis();
  }

  /** Same as {@link #getAwsRequestId()}. */
  public String awsRequestId() {
    return requestId;
  }

  @Override
  public String getAwsRequestId() {
    return requestId;
  }

  @Override
  public String getLogGroupName() {
    return "/aws/lambda/" + functionName;
  }

  @Override
  public String getLogStreamName() {
    return "2026/03/02/[$LATEST]0123456789abcdef";
  }

  @Override
  public String getFunctionName() {
    return functionName;
  }

  @Override
  public String getFunctionVersion() {
    return "$LATEST";
  }

  @Override
  public String getInvokedFunctionArn() {
    return "arn:aws:lambda:us-east-1:123456789012:function:" + functionName;
  }

  @Override
  public CognitoIdentity getIdentity() {
    return null;
  }

  @Override
  public ClientContext getClientContext() {
    return null;
  }

  @Override
  public int getRemainingTimeInMillis() {
    return (int) Math.max(0, remainingMillis.getAsLong());
  }

  @Override
  public int getMemoryLimitInMB() {
    return 512;
  }

  @Override
  public LambdaLogger getLogger() {
    return new LambdaLogger() {
      @Override
      public void log(String message) {
        System.out.println(message);
      }

      @Override
      public void log(byte[] message) {
        System.out.println(new String(message, StandardCharsets.UTF_8));
      }
    };
  }
}
