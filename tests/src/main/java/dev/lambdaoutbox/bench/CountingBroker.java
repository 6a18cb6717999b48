package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * No broker: an in-process publisher that accepts every message at once and stamps the moment the
 * poller handed it over. It measures the poller and the database alone, as the drain benchmark's
 * counting publisher does; its figures are not commit-to-broker latencies.
 */
final class CountingBroker implements LatencyBroker {
  @Override
  public String describe() {
    return "in-process counting publisher (no broker): \"published\" = the moment the poller's"
        + " publish call reached it (wall clock, microseconds)";
  }

  @Override
  public String newDestination() {
    return "https://sqs.us-east-1.amazonaws.com/000000000000/latency-counting";
  }

  @Override
  public MessagePublisher publisher(PollerConfig config, EventTimes times) {
    return new CountingPublisher(times);
  }

  @Override
  public void collect(String destination, EventTimes times, Duration atMost)
      throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (times.acceptedCount() < times.measured() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  @Override
  public void drop(String destination) {}

  @Override
  public OptionalInt port() {
    return OptionalInt.empty();
  }

  @Override
  public void close() {}
}
