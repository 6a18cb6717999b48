package dev.lambdaoutbox.poller.internal.publish;

import java.util.List;

/** Publishes messages to their destinations and says what became of each one. */
public interface MessagePublisher extends AutoCloseable {
  /**
   * Publishes {@code messages} (in claim order) and returns one {@link Delivery} per message. A
   * broker failure, of a whole call or of one entry, is reported as {@link Delivery.Failed}, never
   * thrown.
   */
  List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate);

  /** Releases threads; the default has none. */
  @Override
  default void close() {}
}
