package dev.lambdaoutbox.testing;

import java.net.URI;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * An SNS/SQS/Secrets Manager endpoint the tests may use: LocalStack's runtime from the local test
 * bed, or LocalStack in Docker.
 */
public record AwsEndpoint(URI endpoint, String region, String accessKeyId, String secretAccessKey) {
  /** The account LocalStack answers as: it owns every bucket, topic and queue made there. */
  public static final String ACCOUNT = "000000000000";

  public Region awsRegion() {
    return Region.of(region);
  }

  public StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create(accessKeyId, secretAccessKey));
  }

  /**
   * The variables a function started by hand needs to reach this endpoint as the SDK's default
   * chains read them: {@code AWS_ENDPOINT_URL}, {@code AWS_REGION} and the test credentials.
   */
  public Map<String, String> environment() {
    return Map.of(
        "AWS_ENDPOINT_URL", endpoint.toString(),
        "AWS_REGION", region,
        "AWS_ACCESS_KEY_ID", accessKeyId,
        "AWS_SECRET_ACCESS_KEY", secretAccessKey);
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

  /**
   * Subscribes the queue to the topic with raw delivery: the queue receives each message's body and
   * attributes exactly as published.
   */
  public static void subscribeRaw(SnsClient sns, SqsClient sqs, String topicArn, String queueUrl) {
    String queueArn = queueArn(sqs, queueUrl);
    sns.subscribe(
        r ->
            r.topicArn(topicArn)
                .protocol("sqs")
                .endpoint(queueArn)
                .attributes(Map.of("RawMessageDelivery", "true")));
  }

  /** The ARN of the queue at {@code queueUrl}, as SQS gives it. */
  public static String queueArn(SqsClient sqs, String queueUrl) {
    return sqs.getQueueAttributes(
            r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
        .attributes()
        .get(QueueAttributeName.QUEUE_ARN);
  }

  /** An SQS client for this endpoint, on the URL-connection HTTP client the functions use. */
  public SqsClient sqs() {
    return configure(SqsClient.builder())
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .build();
  }
}
