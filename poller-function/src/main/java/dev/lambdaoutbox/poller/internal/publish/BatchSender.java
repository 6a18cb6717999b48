package dev.lambdaoutbox.poller.internal.publish;

import java.util.List;

/**
 * Sends one batch (at most ten messages, one destination) in one call: SNS {@code PublishBatch} or
 * SQS {@code SendMessageBatch}. Each entry's id is its event id.
 */
public interface BatchSender {
  /**
   * Sends the batch and returns the response as the broker gave it, unreconciled. A call that fails
   * as a whole throws the SDK's exception.
   */
  BatchResponse send(String destination, List<OutboundMessage> batch);
}
