package dev.lambdaoutbox.reprocessor;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** The invocation context Lambda would pass: a fresh request id, no Cognito identity. */
record TestContext(String awsRequestId) implements Context {
  static TestContext fresh() {
    return new TestContext(UUID.randomUUID().toString());
  }

  @Override
  public String getAwsRequestId() {
    return awsRequestId;
  }

  @Override
  public String getLogGroupName() {
    return "/aws/lambda/outbox-dlq-reprocessor";
  }

  @Override
  public String getLogStreamName() {
    return "2026/03/02/[$LATEST]0123456789abcdef";
  }

  @Override
  public String getFunctionName() {
    return "outbox-dlq-reprocessor";
  }

  @Override
  public String getFunctionVersion() {
    return "$LATEST";
  }

  @Override
  public String getInvokedFunctionArn() {
    return "arn:aws:lambda:us-east-1:123456789012:function:outbox-dlq-reprocessor";
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
    return 300_000;
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
        System.out.print(message);
      }

      @Override
      public void log(byte[] message) {
        System.out.print(new String(message, StandardCharsets.UTF_8));
      }
    };
  }
}
