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
import software.amazon.awssdk.services.rdsdata.model.UnsupportedResultException;

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

  /**
   * Fails unless the emulator refuses a row over the Data API's 64 KB as AWS does, with {@code
   * UnsupportedResultException}: an emulator started from an older launcher would let the tests
   * pass on results AWS refuses. {@code scripts/local-aws up} restarts it when its launcher
   * changed.
   */
  public void requireStrict() {
    String sql =
        "SELECT repeat('x', " + (DataApiExecutor.MAX_ROW_BYTES - 3) + ") AS over_the_row_limit";
    try (RdsDataClient client = client()) {
      client.executeStatement(
          b -> b.resourceArn(resourceArn).secretArn(secretArn).database(database).sql(sql));
    } catch (UnsupportedResultException refused) {
      return;
    }
    throw new IllegalStateException(
        "The Data API emulator at "
            + endpoint
            + " returned a row of more than "
            + DataApiExecutor.MAX_ROW_BYTES
            + " bytes, which the Data API refuses: it runs an older launcher than"
            + " scripts/lib/data-api-server.js. Restart it with scripts/local-aws up.");
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
