package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.store.DestinationHealthStore;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.clock.DatabaseClock;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.FullPayload;
import dev.lambdaoutbox.store.model.PurgeReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

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
  public Claim claim(String owner, int limit, Instant now, Duration lease) {
    return delegate.claim(owner, limit, now, lease);
  }

  @Override
  public CompletionReport complete(String owner, List<DeliveryOutcome> outcomes, Instant now) {
    return delegate.complete(owner, outcomes, now);
  }

  @Override
  public PurgeReport purge(Instant now, Duration timeSlice) {
    return delegate.purge(now, timeSlice);
  }

  @Override
  public Backlog backlog(Instant now) {
    return delegate.backlog(now);
  }

  @Override
  public DestinationHealthStore destinationHealth() {
    return delegate.destinationHealth();
  }

  @Override
  public DatabaseClock databaseClock() {
    return delegate.databaseClock();
  }

  @Override
  public int countDue(Instant now, int limit) {
    return delegate.countDue(now, limit);
  }

  @Override
  public FullPayload fullPayload(UUID id, long maxBytes) {
    return delegate.fullPayload(id, maxBytes);
  }

  @Override
  public boolean holdLease(String name, String owner, Instant now, Instant until) {
    return delegate.holdLease(name, owner, now, until);
  }

  @Override
  public boolean releaseLease(String name, String owner, Instant now) {
    return delegate.releaseLease(name, owner, now);
  }
}
