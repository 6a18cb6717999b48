package dev.lambdaoutbox.poller.internal;

import java.util.UUID;

/** What publishing did with one message. */
public sealed interface Delivery {
  UUID id();

  /** The broker accepted the message. */
  record Sent(UUID id) implements Delivery {}

  /** The broker, the client or our own checks refused it. */
  record Failed(UUID id, Failure failure) implements Delivery {}

  /**
   * Not sent at all: the poller stopped first (broker unreachable, time running out, or an earlier
   * message of the same FIFO group failed). The row keeps its lease and its retry count, and is
   * claimed again once the lease runs out.
   */
  record NotAttempted(UUID id, String reason) implements Delivery {}
}
