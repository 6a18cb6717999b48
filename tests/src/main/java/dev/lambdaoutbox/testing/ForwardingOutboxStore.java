package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.store.DeliveryOutcome;
import dev.lambdaoutbox.store.OutboxMessage;
import dev.lambdaoutbox.store.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An {@link OutboxStore} that hands every call to another: extend it to time, stamp or break one
 * step of a real store and leave the rest as they are.
 */
public abstract class ForwardingOutboxStore implements OutboxStore {
  private final OutboxStore delegate;

  protected ForwardingOutboxStore(OutboxStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public List<OutboxMessage> claim(String owner, int limit, Instant now, Duration lease) {
    return delegate.claim(owner, limit, now, lease);
  }

  @Override
  public CompletionCounts complete(String owner, List<DeliveryOutcome> outcomes, Instant now) {
    return delegate.complete(owner, outcomes, now);
  }

  @Override
  public int purgeSent(Instant cutoff, int limit) {
    return delegate.purgeSent(cutoff, limit);
  }

  @Override
  public Backlog backlog(Instant now) {
    return delegate.backlog(now);
  }

  @Override
  public int countDue(Instant now, int limit) {
    return delegate.countDue(now, limit);
  }
}
