package dev.lambdaoutbox.testing;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * An SNS/SQS/Secrets Manager endpoint the tests may use: LocalStack's runtime from the local test
 * bed, or LocalStack in Docker.
 */
public record AwsEndpoint(URI endpoint, String region, String accessKeyId, String secretAccessKey) {

  public Region awsRegion() {
    return Region.of(region);
  }

  public StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(accessKeyId, secretAccessKey));
  }

  /** Points any SDK client builder at this endpoint, with its region and test credentials. */
  public <B extends AwsClientBuilder<B, ?>> B configure(B builder) {
    return builder
        .endpointOverride(endpoint)
        .region(awsRegion())
        .credentialsProvider(credentials());
  }

  /** An SNS client for this endpoint, on the URL-connection HTTP client the functions use. */
  public SnsClient sns() {
    return configure(SnsClient.builder())
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }

  /** An SQS client for this endpoint, on the URL-connection HTTP client the functions use. */
  public SqsClient sqs() {
    return configure(SqsClient.builder())
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }
}
