package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.config.EnvironmentReader;
import java.time.Duration;

/**
 * What a run does once it has drained the due rows: poll again at {@code pollInterval} (zero:
 * stop), or, woken after a commit, linger until it has found no row for {@code wakeLinger}.
 */
public record IdleSettings(Duration pollInterval, Duration wakeLinger) {

  static IdleSettings fromEnvironment(EnvironmentReader env) {
    return new IdleSettings(
        env.duration(PollerVariables.POLL_INTERVAL_MS),
        env.duration(PollerVariables.WAKE_LINGER_MS));
  }

  /** These settings with another poll interval. */
  public IdleSettings withPollInterval(Duration interval) {
    return new IdleSettings(interval, wakeLinger);
  }
}
