package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.store.Ordering;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.StoreSettings;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.MetricNamespace;
import java.util.Map;

/**
 * The reprocessor's configuration, read once from the environment at start-up:
 *
 * <ul>
 *   <li>the database, as the poller reads it ({@link StoreSettings}): {@code OUTBOX_STORE} ({@code
 *       jdbc} or {@code data-api}), {@code OUTBOX_JDBC_URL} and {@code OUTBOX_DB_SECRET_ARN} or
 *       {@code OUTBOX_DB_USER}/{@code OUTBOX_DB_PASSWORD}, or {@code OUTBOX_DATA_API_RESOURCE_ARN},
 *       {@code OUTBOX_DATA_API_SECRET_ARN} and {@code OUTBOX_DATABASE}; {@code
 *       OUTBOX_TABLE_PREFIX}; and the {@code OUTBOX_DB_*_MS} timeouts ({@link ConnectionLimits});
 *   <li>{@code OUTBOX_METRICS_NAMESPACE}: CloudWatch namespace of the metrics (default {@code
 *       LambdaOutbox});
 *   <li>{@code OUTBOX_SERVICE_NAME}: the {@code Service} dimension and log field (default {@code
 *       outbox-dlq-reprocessor});
 *   <li>{@code OUTBOX_LOG_LEVEL}: DEBUG, INFO, WARN or ERROR (default INFO);
 *   <li>{@code OUTBOX_REPLAY_BATCH_SIZE}: rows per transaction in a replay, discard, retarget or
 *       dead-lettering, 1 to 500 (default 100);
 *   <li>{@code OUTBOX_REPLAY_DESTINATIONS}: the destinations an operator may send events to instead
 *       of their own ({@link ReplayDestinations}), topic and queue ARNs separated by commas
 *       (default none: every such request is refused); the stack sets the topics and queues the
 *       poller may publish to. A queue URL whose host names no region is in {@code AWS_REGION}'s;
 *   <li>{@code OUTBOX_ORDERING}: the poller's, {@code none} (the default) or {@code aggregate};
 *       with {@code aggregate}, a waiting row an operator dead-letters parks its aggregate, as the
 *       poller does.
 * </ul>
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

  public static final String METRICS_NAMESPACE = "OUTBOX_METRICS_NAMESPACE";
  public static final String SERVICE_NAME = "OUTBOX_SERVICE_NAME";
  public static final String LOG_LEVEL = "OUTBOX_LOG_LEVEL";
  public static final String BATCH_SIZE = "OUTBOX_REPLAY_BATCH_SIZE";
  public static final String ORDERING = "OUTBOX_ORDERING";

  public static ReprocessorConfig fromEnvironment(Map<String, String> environment) {
    EnvironmentReader env = new EnvironmentReader(environment);
    String level = env.string(LOG_LEVEL, "INFO");
    JsonLogger.Level logLevel = JsonLogger.Level.parse(level);
    if (logLevel == null) {
      throw new ConfigurationException(
          LOG_LEVEL, "'" + level + "' is not a log level; use DEBUG, INFO, WARN or ERROR");
    }
    String orderingText = env.string(ORDERING, "none");
    Ordering ordering = Ordering.parse(orderingText);
    if (ordering == null) {
      throw new ConfigurationException(
          ORDERING, "'" + orderingText + "' is not an ordering; use none or aggregate");
    }
    return new ReprocessorConfig(
        StoreSettings.fromEnvironment(env),
        ConnectionLimits.fromEnvironment(env),
        env.string(METRICS_NAMESPACE, "LambdaOutbox", MetricNamespace::problemWith),
        env.string(SERVICE_NAME, "outbox-dlq-reprocessor"),
        logLevel,
        env.integer(BATCH_SIZE, 100, 1, 500),
        ReplayDestinations.parse(
            env.string(ReplayDestinations.VARIABLE, ""), env.string("AWS_REGION", "")),
        ordering);
  }
}
