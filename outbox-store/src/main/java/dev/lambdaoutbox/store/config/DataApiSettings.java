package dev.lambdaoutbox.store.config;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.time.Duration;

/**
 * The outbox tables over the RDS Data API ({@code OUTBOX_STORE=data-api}): the Aurora cluster, the
 * secret the Data API logs in with, the database, its engine, how long a call keeps retrying and
 * the table prefix, read once from the variables {@link DatabaseVariables} declares. The endpoint
 * is the SDK's own business: {@code AWS_ENDPOINT_URL_RDS_DATA} (or {@code AWS_ENDPOINT_URL}) points
 * it elsewhere, e.g. at a local emulator.
 */
public record DataApiSettings(
    String resourceArn,
    String secretArn,
    String database,
    SqlDialect dialect,
    Duration retryTimeout,
    OutboxTables tables)
    implements StoreSettings {

  /** The variables' names, for messages, as {@link DatabaseVariables} declares them. */
  public static final String SECRET_ARN = DatabaseVariables.DATA_API_SECRET_ARN.name();

  public static final String RETRY_TIMEOUT = DatabaseVariables.DATA_API_RETRY_TIMEOUT.name();

  /** What an unset {@code OUTBOX_DATA_API_RETRY_TIMEOUT_MS} stands for. */
  public static final Duration DEFAULT_RETRY_TIMEOUT =
      Duration.ofMillis(Long.parseLong(DatabaseVariables.DATA_API_RETRY_TIMEOUT.defaultValue()));

  public static DataApiSettings fromEnvironment(EnvironmentReader env) {
    String resource =
        env.required(
            DatabaseVariables.DATA_API_RESOURCE_ARN,
            "the Aurora cluster's ARN, e.g. arn:aws:rds:eu-west-1:123456789012:cluster:orders");
    if (!resource.matches("arn:[a-z-]+:rds:[a-z0-9-]+:\\d{12}:cluster:[A-Za-z0-9-]+")) {
      throw new ConfigurationException(
          DatabaseVariables.DATA_API_RESOURCE_ARN.name(),
          "'"
              + resource
              + "' is not an Aurora cluster ARN (arn:aws:rds:REGION:ACCOUNT:cluster:NAME)");
    }
    String secret =
        env.required(
            DatabaseVariables.DATA_API_SECRET_ARN,
            "the ARN of the Secrets Manager secret with the database's login");
    if (!secret.startsWith("arn:") || !secret.contains(":secretsmanager:")) {
      throw new ConfigurationException(
          DatabaseVariables.DATA_API_SECRET_ARN.name(),
          "'" + secret + "' is not a Secrets Manager secret ARN (arn:aws:secretsmanager:...)");
    }
    String database =
        env.required(
            DatabaseVariables.DATABASE, "the name of the database holding the outbox tables");
    SqlDialect dialect =
        switch (env.choice(DatabaseVariables.DATA_API_ENGINE)) {
          case "mysql" -> SqlDialect.MYSQL;
          default -> SqlDialect.POSTGRESQL;
        };
    Duration retry = env.duration(DatabaseVariables.DATA_API_RETRY_TIMEOUT);
    return new DataApiSettings(
        resource, secret, database, dialect, retry, StoreSettings.tables(env));
  }

  /** The cluster's region, from its ARN. */
  public String region() {
    return resourceArn.split(":")[3];
  }
}
