package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.config.EnvironmentReader;
import java.time.Duration;

/**
 * What the poller's store keeps and how much one of its statements touches: published rows and
 * idempotency keys, and the rows one parking statement updates.
 */
public record StoreTuning(Duration retention, Duration idempotencyWindow, int parkingChunkSize) {

  static StoreTuning fromEnvironment(EnvironmentReader env) {
    return new StoreTuning(
        env.duration(PollerVariables.RETENTION_HOURS),
        env.duration(PollerVariables.IDEMPOTENCY_WINDOW_HOURS),
        env.integer(PollerVariables.PARKING_CHUNK_SIZE));
  }
}
