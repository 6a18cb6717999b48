package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.SharedVariables;
import dev.lambdaoutbox.store.config.StoreSettings;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.MetricNamespace;
import java.util.Map;

/**
 * The reprocessor's configuration, read once from the environment at start-up and validated against
 * the declarations of {@link ReprocessorVariables} (and the database's and the shared ones it
 * adds): the database, as the poller reads it ({@link StoreSettings}, {@link ConnectionLimits});
 * the logs and metrics; how many rows one transaction moves; where operators may send events by
 * hand ({@link ReplayDestinations}); and the poller's ordering, so that a waiting row an operator
 * dead-letters parks its aggregate as the poller would.
 */
public record ReprocessorConfig(
    StoreSettings database,
    ConnectionLimits connectionLimits,
    String metricsNamespace,
    String serviceName,
    JsonLogger.Level logLevel,
    int batchSize,
    ReplayDestinations replayDestinations,
    Ordering ordering) {

  public static ReprocessorConfig fromEnvironment(Map<String, String> environment) {
    EnvironmentReader env = new EnvironmentReader(environment);
    JsonLogger.Level logLevel = JsonLogger.Level.parse(env.choice(SharedVariables.LOG_LEVEL));
    Ordering ordering = Ordering.parse(env.choice(SharedVariables.ORDERING));
    return new ReprocessorConfig(
        StoreSettings.fromEnvironment(env),
        ConnectionLimits.fromEnvironment(env),
        env.text(SharedVariables.METRICS_NAMESPACE, MetricNamespace::problemWith),
        env.text(ReprocessorVariables.SERVICE_NAME),
        logLevel,
        env.integer(ReprocessorVariables.BATCH_SIZE),
        ReplayDestinations.parse(
            env.text(ReprocessorVariables.REPLAY_DESTINATIONS),
            env.text(ReprocessorVariables.AWS_REGION)),
        ordering);
  }
}
