package dev.lambdaoutbox.poller;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/** A Lambda context whose remaining time runs down in real time from the given timeout. */
final class TestContext implements Context {
  private final String requestId = UUID.randomUUID().toString();
  private final long deadlineNanos;

  TestContext(Duration timeout) {
    this.deadlineNanos = System.nanoTime() + timeout.toNanos();
  }

  @Override
  public String getAwsRequestId() {
    return requestId;
  }

  @Override
  public String getLogGroupName() {
    return "/aws/lambda/outbox-poller";
  }

  @Override
  public String getLogStreamName() {
    return "test";
  }

  @Override
  public String getFunctionName() {
    return "outbox-poller";
  }

  @Override
  public String getFunctionVersion() {
    return "$LATEST";
  }

  @Override
  public String getInvokedFunctionArn() {
    return "arn:aws:lambda:us-east-1:123456789012:function:outbox-poller";
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
    return (int) Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
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
