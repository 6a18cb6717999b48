package dev.lambdaoutbox.poller.internal.wiring;

import java.time.Duration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.SnsClientBuilder;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * The poller's AWS clients, as the composition root builds them: on the JDK's URL connection (no
 * Netty, no Apache client), each call bounded by the publish timeout, a broker that does not accept
 * a connection within two seconds taken as down. The S3 client only with a claim-check bucket.
 * Region, credentials and endpoint ({@code AWS_ENDPOINT_URL}) come from the SDK's own default
 * chains.
 */
public final class AwsClients {
  /**
   * Opening a connection to SNS/SQS/EventBridge/Lambda; a broker that does not answer this fast is
   * down.
   */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  private AwsClients() {}

  public static SnsClient sns(Duration publishTimeout) {
    return snsBuilder(publishTimeout).build();
  }

  public static SqsClient sqs(Duration publishTimeout) {
    return sqsBuilder(publishTimeout).build();
  }

  /** The EventBridge client routes to an event bus are published with. */
  public static EventBridgeClient events(Duration publishTimeout) {
    return EventBridgeClient.builder()
        .httpClientBuilder(httpClient(publishTimeout))
        .overrideConfiguration(o -> o.apiCallTimeout(publishTimeout))
        .build();
  }

  /**
   * The S3 client the claim check stores payloads with: a call may take the publish timeout, as a
   * batch does (16 MiB at the least bandwidth a Lambda function sees takes well under it).
   */
  public static S3Client s3(Duration publishTimeout) {
    return S3Client.builder()
        .httpClientBuilder(httpClient(publishTimeout))
        .overrideConfiguration(o -> o.apiCallTimeout(publishTimeout))
        .build();
  }

  /** The Lambda client a fan-out starts invocations with. */
  static LambdaClient lambda(Duration timeout) {
    return LambdaClient.builder()
        .httpClientBuilder(httpClient(timeout))
        .overrideConfiguration(o -> o.apiCallTimeout(timeout))
        .build();
  }

  /** The SNS client's builder: HTTP client and timeouts set; region, credentials from defaults. */
  static SnsClientBuilder snsBuilder(Duration publishTimeout) {
    return SnsClient.builder()
        .httpClientBuilder(httpClient(publishTimeout))
        .overrideConfiguration(o -> o.apiCallTimeout(publishTimeout));
  }

  /** The SQS client's builder: HTTP client and timeouts set; region, credentials from defaults. */
  static SqsClientBuilder sqsBuilder(Duration publishTimeout) {
    return SqsClient.builder()
        .httpClientBuilder(httpClient(publishTimeout))
        .overrideConfiguration(o -> o.apiCallTimeout(publishTimeout));
  }

  private static UrlConnectionHttpClient.Builder httpClient(Duration timeout) {
    return UrlConnectionHttpClient.builder()
        .connectionTimeout(CONNECT_TIMEOUT)
        .socketTimeout(timeout);
  }
}
