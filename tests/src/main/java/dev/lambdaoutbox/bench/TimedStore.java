package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.testing.ForwardingOutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link OutboxStore} that adds up the wall time of its claims and completions, to tell how much
 * of a drain the database's part took.
 */
final class TimedStore extends ForwardingOutboxStore {
  final AtomicLong claimNanos = new AtomicLong();
  final AtomicLong claims = new AtomicLong();
  final AtomicLong completeNanos = new AtomicLong();

  TimedStore(OutboxStore store) {
    super(store);
  }

  @Override
  public Claim claim(String owner, int limit, Instant now, Duration lease) {
    long start = System.nanoTime();
    try {
      return super.claim(owner, limit, now, lease);
    } finally {
      claimNanos.addAndGet(System.nanoTime() - start);
      claims.incrementAndGet();
    }
  }

  @Override
  public CompletionReport complete(String owner, List<DeliveryOutcome> outcomes, Instant now) {
    long start = System.nanoTime();
    try {
      return super.complete(owner, outcomes, now);
    } finally {
      completeNanos.addAndGet(System.nanoTime() - start);
    }
  }
}
