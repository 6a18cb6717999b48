package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.PublishListener;
import java.util.List;
import java.util.UUID;

/** Stamps in {@link EventTimes} when each of the poller's publish calls returned. */
record StampingPublisher(EventTimes times) implements PublishListener {
  @Override
  public void published(List<UUID> eventIds, long nanos) {
    long end = EventTimes.nowMicros();
    times.publishReturned(eventIds, end, nanos / 1_000);
  }
}
