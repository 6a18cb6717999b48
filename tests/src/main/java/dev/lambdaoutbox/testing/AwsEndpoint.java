package dev.lambdaoutbox.testing;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * An SNS/SQS/Secrets Manager endpoint the tests may use: moto from the local test bed, or
 * LocalStack.
 */
public record AwsEndpoint(URI endpoint, String region, String accessKeyId, String secretAccessKey) {

  public Region awsRegion() {
    return Region.of(region);
  }

  public StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(accessKeyId, secretAccessKey));
  }
}
