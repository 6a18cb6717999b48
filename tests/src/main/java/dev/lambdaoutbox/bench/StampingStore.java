package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.store.model.Claim;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.testing.ForwardingOutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** An {@link OutboxStore} that stamps in {@link EventTimes} when each row was claimed. */
final class StampingStore extends ForwardingOutboxStore {
  private final EventTimes times;

  StampingStore(OutboxStore store, EventTimes times) {
    super(store);
    this.times = times;
  }

  @Override
  public Claim claim(String owner, int limit, Instant now, Duration lease) {
    long start = EventTimes.nowMicros();
    Claim claimed = super.claim(owner, limit, now, lease);
    long end = EventTimes.nowMicros();
    times.claimed(claimed.messages().stream().map(OutboxMessage::id).toList(), end, end - start);
    return claimed;
  }

  @Override
  public CompletionReport complete(String owner, List<DeliveryOutcome> outcomes, Instant now) {
    long start = EventTimes.nowMicros();
    try {
      return super.complete(owner, outcomes, now);
    } finally {
      times.completed(EventTimes.nowMicros() - start);
    }
  }
}
