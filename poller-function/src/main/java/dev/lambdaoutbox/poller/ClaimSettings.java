package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.EnvironmentReader;

/** How many rows a claim takes: the first (and smallest) claim, and the largest. */
public record ClaimSettings(int batchSize, int maxBatchSize) {

  /** The largest claim must be at least the first. */
  static ClaimSettings fromEnvironment(EnvironmentReader env) {
    int batchSize = env.integer(PollerVariables.BATCH_SIZE);
    int maxBatchSize = env.integer(PollerVariables.MAX_BATCH_SIZE);
    if (maxBatchSize < batchSize) {
      throw new ConfigurationException(
          PollerVariables.MAX_BATCH_SIZE.name(),
          maxBatchSize
              + " is below "
              + PollerVariables.BATCH_SIZE.name()
              + " ("
              + batchSize
              + "); the largest claim must be at least the first");
    }
    return new ClaimSettings(batchSize, maxBatchSize);
  }
}
