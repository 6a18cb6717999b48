package dev.lambdaoutbox.store.config;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import java.time.Duration;

/**
 * The outbox tables over the RDS Data API ({@code OUTBOX_STORE=data-api}), read once from the
 * environment:
 *
 * <ul>
 *   <li>{@code OUTBOX_DATA_API_RESOURCE_ARN}: the Aurora cluster ({@code
 *       arn:aws:rds:REGION:ACCOUNT:cluster:NAME}), with the Data API enabled;
 *   <li>{@code OUTBOX_DATA_API_SECRET_ARN}: the Secrets Manager secret with the database login;
 *   <li>{@code OUTBOX_DATABASE}: the database holding the outbox tables;
 *   <li>{@code OUTBOX_DATA_API_ENGINE}: {@code postgresql} (the default) or {@code mysql};
 *   <li>{@code OUTBOX_DATA_API_RETRY_TIMEOUT_MS} (default 30,000): how long one store call keeps
 *       retrying while the cluster resumes from zero capacity, the Data API throttles or answers
 *       with a 5xx; keep it well below the function's timeout;
 *   <li>{@code OUTBOX_TABLE_PREFIX}: prefix of the outbox table names (default none).
 * </ul>
 *
 * The endpoint is the SDK's own business: {@code AWS_ENDPOINT_URL_RDS_DATA} (or {@code
 * AWS_ENDPOINT_URL}) points it elsewhere, e.g. at a local emulator.
 */
public record DataApiSettings(
    String resourceArn,
    String secretArn,
    String database,
    SqlDialect dialect,
    Duration retryTimeout,
    OutboxTables tables)
    implements StoreSettings {

  public static final String RESOURCE_ARN = "OUTBOX_DATA_API_RESOURCE_ARN";
  public static final String SECRET_ARN = "OUTBOX_DATA_API_SECRET_ARN";
  public static final String DATABASE = "OUTBOX_DATABASE";
  public static final String ENGINE = "OUTBOX_DATA_API_ENGINE";
  public static final String RETRY_TIMEOUT = "OUTBOX_DATA_API_RETRY_TIMEOUT_MS";
  public static final Duration DEFAULT_RETRY_TIMEOUT = Duration.ofSeconds(30);

  public static DataApiSettings fromEnvironment(EnvironmentReader env) {
    String resource =
        env.required(
            RESOURCE_ARN,
            "the Aurora cluster's ARN, e.g. arn:aws:rds:eu-west-1:123456789012:cluster:orders");
    if (!resource.matches("arn:[a-z-]+:rds:[a-z0-9-]+:\\d{12}:cluster:[A-Za-z0-9-]+")) {
      throw new ConfigurationException(
          RESOURCE_ARN,
          "'"
              + resource
              + "' is not an Aurora cluster ARN (arn:aws:rds:REGION:ACCOUNT:cluster:NAME)");
    }
    String secret =
        env.required(SECRET_ARN, "the ARN of the Secrets Manager secret with the database's login");
    if (!secret.startsWith("arn:") || !secret.contains(":secretsmanager:")) {
      throw new ConfigurationException(
          SECRET_ARN,
          "'" + secret + "' is not a Secrets Manager secret ARN (arn:aws:secretsmanager:...)");
    }
    String database = env.required(DATABASE, "the name of the database holding the outbox tables");
    String engine = env.string(ENGINE, "postgresql");
    SqlDialect dialect =
        switch (engine) {
          case "postgresql" -> SqlDialect.POSTGRESQL;
          case "mysql" -> SqlDialect.MYSQL;
          default ->
              throw new ConfigurationException(
                  ENGINE, "'" + engine + "' is not a Data API engine; use 'postgresql' or 'mysql'");
        };
    Duration retry =
        env.millis(RETRY_TIMEOUT, DEFAULT_RETRY_TIMEOUT, Duration.ZERO, Duration.ofMinutes(10));
    return new DataApiSettings(
        resource, secret, database, dialect, retry, StoreSettings.tables(env));
  }

  /** The cluster's region, from its ARN. */
  public String region() {
    return resourceArn.split(":")[3];
  }
}
