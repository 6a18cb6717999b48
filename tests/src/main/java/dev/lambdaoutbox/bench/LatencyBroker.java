package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.poller.internal.publish.MessagePublisher;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * Where the latency harness's poller publishes, and how the harness learns when each event was
 * accepted there.
 */
interface LatencyBroker extends AutoCloseable {
  /** For the report: what it is and which time counts as "published". */
  String describe();

  /** A fresh destination (queue) for one measurement. */
  String newDestination();

  /** The publisher the poller uses; {@code times} is for a broker that stamps in-process. */
  MessagePublisher publisher(PollerConfig config, EventTimes times);

  /**
   * Reads from {@code destination} the time each measured event was accepted into {@code times},
   * until every measured event is there or {@code atMost} has passed.
   */
  void collect(String destination, EventTimes times, Duration atMost) throws Exception;

  /** Removes {@code destination}. */
  void drop(String destination);

  /** The port of the broker's server process, to read its CPU use; empty when in-process. */
  OptionalInt port();

  @Override
  void close();
}
