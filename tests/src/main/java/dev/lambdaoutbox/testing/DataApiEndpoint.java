package dev.lambdaoutbox.testing;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.SqlExecutors;
import dev.lambdaoutbox.store.dataapi.DataApiExecutor;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.rdsdata.RdsDataClient;

/**
 * An RDS Data API endpoint the tests may use: the test bed's {@code data-api-local}, which serves
 * the test bed's PostgreSQL database, so that rows written over JDBC are read over the Data API and
 * the other way round.
 */
public record DataApiEndpoint(
    URI endpoint,
    String region,
    String resourceArn,
    String secretArn,
    String database,
    String accessKeyId,
    String secretAccessKey) {

  /**
   * A client as the functions build it (URL-connection HTTP, no SDK retries, a call timeout above
   * the Data API's statement timeout), pointed at this endpoint.
   */
  public RdsDataClient client() {
    return RdsDataClient.builder()
        .endpointOverride(endpoint)
        .region(Region.of(region))
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(accessKeyId, secretAccessKey)))
        .httpClientBuilder(
            UrlConnectionHttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(5))
                .socketTimeout(SqlExecutors.DATA_API_CALL_TIMEOUT))
        .overrideConfiguration(
            o ->
                o.apiCallTimeout(SqlExecutors.DATA_API_CALL_TIMEOUT)
                    .retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  /** An executor for this endpoint's PostgreSQL database on {@code client}. */
  public DataApiExecutor.Builder executor(RdsDataClient client) {
    return DataApiExecutor.builder(client)
        .resourceArn(resourceArn)
        .secretArn(secretArn)
        .database(database)
        .dialect(SqlDialect.POSTGRESQL);
  }

  /**
   * The environment a packaged function needs to use this endpoint in {@code OUTBOX_STORE=data-api}
   * mode; the SDK finds the endpoint through {@code AWS_ENDPOINT_URL_RDS_DATA}.
   */
  public Map<String, String> functionEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("OUTBOX_STORE", "data-api");
    env.put("OUTBOX_DATA_API_RESOURCE_ARN", resourceArn);
    env.put("OUTBOX_DATA_API_SECRET_ARN", secretArn);
    env.put("OUTBOX_DATABASE", database);
    env.put("AWS_ENDPOINT_URL_RDS_DATA", endpoint.toString());
    return env;
  }
}
