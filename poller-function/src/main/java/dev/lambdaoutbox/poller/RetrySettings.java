package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.Setting;
import java.time.Duration;

/**
 * How failures are retried: the retries a row may spend and the backoff between them, and how often
 * a destination found down is probed.
 */
public record RetrySettings(
    int maxRetries,
    Duration backoffBase,
    Duration backoffMax,
    Duration probeIntervalMin,
    Duration probeIntervalMax) {

  /** Each cap must be at least its base. */
  static RetrySettings fromEnvironment(EnvironmentReader env) {
    int maxRetries = env.integer(PollerVariables.MAX_RETRIES);
    Duration backoffBase = env.duration(PollerVariables.BACKOFF_BASE_MS);
    Duration backoffMax = env.duration(PollerVariables.BACKOFF_MAX_MS);
    requireAtLeast(
        PollerVariables.BACKOFF_MAX_MS,
        backoffMax,
        PollerVariables.BACKOFF_BASE_MS,
        backoffBase,
        "the cap must be at least the base delay");
    Duration probeMin = env.duration(PollerVariables.PROBE_INTERVAL_MIN_MS);
    Duration probeMax = env.duration(PollerVariables.PROBE_INTERVAL_MAX_MS);
    requireAtLeast(
        PollerVariables.PROBE_INTERVAL_MAX_MS,
        probeMax,
        PollerVariables.PROBE_INTERVAL_MIN_MS,
        probeMin,
        "the longest interval between probes must be at least the shortest");
    return new RetrySettings(maxRetries, backoffBase, backoffMax, probeMin, probeMax);
  }

  /** Refuses {@code max} below {@code min}, naming {@code maxSetting} and saying {@code why}. */
  private static void requireAtLeast(
      Setting maxSetting, Duration max, Setting minSetting, Duration min, String why) {
    if (max.compareTo(min) < 0) {
      throw new ConfigurationException(
          maxSetting.name(),
          max.toMillis()
              + "ms is below "
              + minSetting.name()
              + " ("
              + min.toMillis()
              + "ms); "
              + why);
    }
  }
}
