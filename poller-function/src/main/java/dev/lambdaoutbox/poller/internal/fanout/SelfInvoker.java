package dev.lambdaoutbox.poller.internal.fanout;

/** Starts an asynchronous invocation of a Lambda function: Lambda's {@code Invoke}, type Event. */
public interface SelfInvoker {
  /**
   * Queues one invocation of {@code functionArn} with {@code payload} (JSON) and returns without
   * waiting for it; throws if Lambda did not accept it.
   */
  void invokeAsync(String functionArn, String payload);
}
