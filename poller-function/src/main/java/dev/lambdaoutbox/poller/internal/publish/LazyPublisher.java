package dev.lambdaoutbox.poller.internal.publish;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A {@link MessagePublisher} built on first use: an invocation that finds nothing to publish never
 * loads the AWS SDK, which is most of a cold start's class loading. {@link #initialize()} builds it
 * ahead of time (the SnapStart priming hook does, so a snapshot holds ready clients).
 *
 * <p>A publisher that cannot be built (say, no AWS region configured) fails the first invocation
 * with rows to publish, with the SDK's message, rather than the function's init: its claimed rows
 * keep their retry count and are claimed again once their lease ends, and each invocation fails the
 * same way (the Errors alarm) until the configuration is fixed. Nothing is dead-lettered for it. A
 * failure is not remembered: the next publish tries to build again.
 */
public final class LazyPublisher implements MessagePublisher {
  private final Supplier<? extends MessagePublisher> factory;
  private volatile MessagePublisher publisher;

  public LazyPublisher(Supplier<? extends MessagePublisher> factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  /** The publisher, built now if it was not yet. */
  public MessagePublisher initialize() {
    MessagePublisher built = publisher;
    if (built == null) {
      synchronized (this) {
        built = publisher;
        if (built == null) {
          built = Objects.requireNonNull(factory.get(), "publisher");
          publisher = built;
        }
      }
    }
    return built;
  }

  @Override
  public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
    return initialize().publish(messages, gate);
  }

  @Override
  public void close() {
    MessagePublisher built = publisher;
    if (built != null) {
      built.close();
    }
  }
}
