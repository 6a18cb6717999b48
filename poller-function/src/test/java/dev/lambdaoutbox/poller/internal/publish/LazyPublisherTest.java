package dev.lambdaoutbox.poller.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LazyPublisherTest {
  /** Counts how often it was built, published through and closed. */
  private static final class Counting implements MessagePublisher {
    final AtomicInteger publishes = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();

    @Override
    public List<Delivery> publish(List<OutboundMessage> messages, PublishGate gate) {
      publishes.incrementAndGet();
      return List.of();
    }

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }

  @Test
  void nothingIsBuilt_untilTheFirstPublish_thenTheSamePublisherServesEveryCall() {
    AtomicInteger built = new AtomicInteger();
    Counting counting = new Counting();
    LazyPublisher lazy = countingBuilds(built, counting);

    assertThat(built).hasValue(0);
    lazy.publish(List.of(), PublishGate.open());
    lazy.publish(List.of(), PublishGate.open());
    lazy.close();

    assertThat(built).hasValue(1);
    assertThat(counting.publishes).hasValue(2);
    assertThat(counting.closes).hasValue(1);
  }

  @Test
  void closingAPublisherNeverUsed_buildsNothing() {
    AtomicInteger built = new AtomicInteger();
    LazyPublisher lazy = countingBuilds(built, new Counting());

    lazy.close();

    assertThat(built).hasValue(0);
  }

  @Test
  void initialize_buildsAheadOfTime_once() {
    AtomicInteger built = new AtomicInteger();
    Counting counting = new Counting();
    LazyPublisher lazy = countingBuilds(built, counting);

    assertThat(lazy.initialize()).isSameAs(counting);
    assertThat(lazy.initialize()).isSameAs(counting);
    assertThat(built).hasValue(1);
  }

  /** A lazy publisher over {@code publisher} that counts its builds in {@code built}. */
  private static LazyPublisher countingBuilds(AtomicInteger built, MessagePublisher publisher) {
    return new LazyPublisher(
        () -> {
          built.incrementAndGet();
          return publisher;
        });
  }
}
