package dev.lambdaoutbox.poller.internal;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Opens for the rest of one invocation once the broker looks down: a batch call could not connect
 * or timed out, or every entry of a batch failed transiently. While open, nothing more is claimed
 * or sent, so an outage costs each row at most the one attempt that revealed it.
 */
public final class CircuitBreaker {
  private final AtomicReference<Failure> openedBy = new AtomicReference<>();

  /** Opens the breaker; the first failure is kept as the cause. */
  public void open(Failure cause) {
    openedBy.compareAndSet(null, cause);
  }

  public boolean isOpen() {
    return openedBy.get() != null;
  }

  /** What opened it. */
  public Optional<Failure> cause() {
    return Optional.ofNullable(openedBy.get());
  }
}
