package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.EmbeddedPoller;
import dev.lambdaoutbox.poller.PublishListener;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counting publisher: no broker behind the poller ({@link
 * EmbeddedPoller.Builder#withoutBroker()}), every message accepted at once and counted here. With
 * {@link EventTimes}, it also stamps the moment each message reached it. Benchmarks use it to
 * measure the poller and the database alone; figures with it are never broker figures.
 */
final class CountingPublisher implements PublishListener {
  private final EventTimes times;
  private final AtomicLong messages = new AtomicLong();

  /** Counts only. */
  CountingPublisher() {
    this(null);
  }

  /** Counts, and stamps acceptance in {@code times}. */
  CountingPublisher(EventTimes times) {
    this.times = times;
  }

  /** {@code poller} publishing to no broker, counted here. */
  EmbeddedPoller.Builder publishFrom(EmbeddedPoller.Builder poller) {
    return poller.withoutBroker().listener(this);
  }

  @Override
  public void publishing(List<UUID> eventIds) {
    long now = EventTimes.nowMicros();
    if (times != null) {
      for (UUID id : eventIds) {
        times.accepted(id, now);
      }
    }
    messages.addAndGet(eventIds.size());
  }

  long messages() {
    return messages.get();
  }
}
