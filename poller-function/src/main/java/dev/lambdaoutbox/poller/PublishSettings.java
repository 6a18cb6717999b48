package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.model.Ordering;

/**
 * How hard the poller publishes: batch calls in flight, the send rate per destination, the runs
 * draining at once, and whether a run pipelines its claims, calls and recordings.
 */
public record PublishSettings(
    int publishConcurrency, int maxSendRate, int maxConcurrentPollers, boolean pipeline) {

  /** {@code OUTBOX_PIPELINE=auto} pipelines unless events are ordered per aggregate. */
  static PublishSettings fromEnvironment(EnvironmentReader env, Ordering ordering) {
    int maxSendRate = env.integer(PollerVariables.MAX_SEND_RATE);
    int concurrency = env.integer(PollerVariables.PUBLISH_CONCURRENCY);
    int maxConcurrentPollers = env.integer(PollerVariables.MAX_CONCURRENT_POLLERS);
    boolean pipeline =
        switch (env.choice(PollerVariables.PIPELINE)) {
          // With ordering a short claim waits for its recording anyway, so pipelining gains
          // nothing there and loses over few busy aggregates.
          case "auto" -> ordering != Ordering.AGGREGATE;
          case "true" -> true;
          default -> false;
        };
    return new PublishSettings(concurrency, maxSendRate, maxConcurrentPollers, pipeline);
  }
}
