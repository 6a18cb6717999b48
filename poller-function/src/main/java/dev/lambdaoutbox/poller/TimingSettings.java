package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import java.time.Duration;

/**
 * The times one invocation keeps to: the longest batch call, the lease of a claimed row, and the
 * margin before the Lambda timeout in which no work starts.
 */
public record TimingSettings(Duration publishTimeout, Duration lease, Duration safetyMargin) {

  /**
   * The lease must exceed two publish calls and the safety margin: one call may start just before
   * the cut-off and must end, and its rows be recorded, before the lease runs out.
   */
  static TimingSettings fromEnvironment(EnvironmentReader env) {
    Duration publishTimeout = env.duration(PollerVariables.PUBLISH_TIMEOUT_MS);
    Duration lease = env.duration(PollerVariables.LEASE_SECONDS);
    Duration safetyMargin = env.duration(PollerVariables.SAFETY_MARGIN_MS);
    Duration leaseNeeds = publishTimeout.multipliedBy(2).plus(safetyMargin);
    if (lease.compareTo(leaseNeeds) <= 0) {
      throw new ConfigurationException(
          PollerVariables.LEASE_SECONDS.name(),
          lease.toSeconds()
              + "s does not exceed twice "
              + PollerVariables.PUBLISH_TIMEOUT_MS.name()
              + " plus "
              + PollerVariables.SAFETY_MARGIN_MS.name()
              + " ("
              + leaseNeeds.toMillis()
              + "ms); claimed rows could be claimed again while still being published");
    }
    return new TimingSettings(publishTimeout, lease, safetyMargin);
  }
}
