package dev.lambdaoutbox.store;

import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.CredentialsSource;
import dev.lambdaoutbox.store.config.DataApiSettings;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.config.StoreSettings;
import dev.lambdaoutbox.store.dataapi.DataApiExecutor;
import dev.lambdaoutbox.store.jdbc.JdbcConnectionProvider;
import dev.lambdaoutbox.store.jdbc.JdbcExecutor;
import dev.lambdaoutbox.store.sql.SqlExecutor;
import java.time.Duration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClientBuilder;

/**
 * Builds the executor both functions run their store on, from their settings: over JDBC (a lazy
 * connection, the login from a secret or the environment) or over the RDS Data API. Clients are
 * built here, once per container, on the JDK's URL connection (no Netty, no Apache client); nothing
 * is called until first use. Endpoints, credentials and (for the secret) region come from the SDK's
 * own default chains.
 */
public final class SqlExecutors {
  /**
   * The longest one Data API call may take: above the Data API's own 45 s statement timeout, so
   * that the service, not the client, ends a slow statement.
   */
  public static final Duration DATA_API_CALL_TIMEOUT = Duration.ofSeconds(50);

  private SqlExecutors() {}

  public static SqlExecutor fromSettings(StoreSettings settings, ConnectionLimits limits) {
    // instanceof, not a pattern switch: the switch's bootstrap (SwitchBootstraps) would cost each
    // function's cold start about 40 ms, this being the first such switch its init reaches.
    if (settings instanceof DatabaseSettings jdbc) {
      return JdbcExecutor.of(
          JdbcConnectionProvider.create(
              jdbc, CredentialsSource.from(jdbc, SqlExecutors::secretsManagerFor), limits),
          jdbc.resultBudgetBytes());
    }
    if (settings instanceof DataApiSettings dataApi) {
      return DataApiExecutor.builder(rdsDataClient(dataApi, limits), dataApi).build();
    }
    throw new IllegalArgumentException("no executor for " + settings.getClass().getName());
  }

  /**
   * A Data API client in the cluster's region that never retries by itself (the executor retries
   * whole transactions; a statement retried inside one could run twice).
   */
  public static RdsDataClient rdsDataClient(DataApiSettings settings, ConnectionLimits limits) {
    return RdsDataClient.builder()
        .region(Region.of(settings.region()))
        .httpClientBuilder(
            UrlConnectionHttpClient.builder()
                .connectionTimeout(limits.connectTimeout())
                .socketTimeout(DATA_API_CALL_TIMEOUT))
        .overrideConfiguration(
            o ->
                o.apiCallTimeout(DATA_API_CALL_TIMEOUT)
                    .retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  /** A Secrets Manager client in the secret's own region. */
  private static SecretsManagerClient secretsManagerFor(String secretArn) {
    String[] parts = secretArn.split(":");
    SecretsManagerClientBuilder builder =
        SecretsManagerClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder());
    if (parts.length > 3 && !parts[3].isBlank()) {
      builder.region(Region.of(parts[3]));
    }
    return builder.build();
  }
}
