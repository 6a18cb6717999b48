package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A publisher with no broker behind it: every message is accepted at once and counted. With {@link
 * EventTimes}, it also stamps the moment each message reached it. Benchmarks use it to measure the
 * poller and the database alone; figures with it are never broker figures.
 */
final class CountingPublisher implements MessagePublisher {
  private final EventTimes times;
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong payloadChars = new AtomicLong();

  /** Counts only. */
  CountingPublisher() {
    this(null);
  }

  /** Counts, and stamps acceptance in {@code times}. */
  CountingPublisher(EventTimes times) {
    this.times = times;
  }

  @Override
  public List<Delivery> publish(List<OutboundMessage> batch, PublishGate gate) {
    long now = EventTimes.nowMicros();
    List<Delivery> sent = new ArrayList<>(batch.size());
    long chars = 0;
    for (OutboundMessage m : batch) {
      chars += m.body().length();
      sent.add(new Delivery.Sent(m.id()));
      if (times != null) {
        times.accepted(m.id(), now);
      }
    }
    messages.addAndGet(batch.size());
    payloadChars.addAndGet(chars);
    return sent;
  }

  long messages() {
    return messages.get();
  }
}
