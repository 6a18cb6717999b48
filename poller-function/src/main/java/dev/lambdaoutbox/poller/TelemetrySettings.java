package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.SharedVariables;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.MetricNamespace;

/** The poller's logs and metrics: the log level, the metrics' namespace and service name. */
public record TelemetrySettings(
    JsonLogger.Level logLevel, String metricsNamespace, String serviceName) {

  static TelemetrySettings fromEnvironment(EnvironmentReader env) {
    return new TelemetrySettings(
        JsonLogger.Level.parse(env.choice(SharedVariables.LOG_LEVEL)),
        env.text(SharedVariables.METRICS_NAMESPACE, MetricNamespace::problemWith),
        env.text(PollerVariables.SERVICE_NAME));
  }
}
