package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.internal.publish.Delivery;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import dev.lambdaoutbox.poller.internal.publish.OutboundMessage;
import dev.lambdaoutbox.poller.internal.publish.PublishGate;
import java.util.List;

/** A {@link MessagePublisher} that stamps in {@link EventTimes} when each publish call returned. */
record StampingPublisher(MessagePublisher publisher, EventTimes times) implements MessagePublisher {
  @Override
  public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
    long start = EventTimes.nowMicros();
    List<Delivery> deliveries = publisher.publish(messages, gate);
    long end = EventTimes.nowMicros();
    times.publishReturned(messages.stream().map(OutboundMessage::id).toList(), end, end - start);
    return deliveries;
  }

  @Override
  public void close() {
    publisher.close();
  }
}
