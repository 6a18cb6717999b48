package dev.lambdaoutbox.poller.internal;

import java.time.Duration;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;

/**
 * The real {@link SelfInvoker}: the SDK's Lambda client on the URL-connection HTTP client, region
 * and credentials from the SDK's default chains. The client is built on the first invocation
 * started, so a poller that never scales out loads none of it (a cold start pays nothing for it).
 */
final class LambdaSelfInvoker implements SelfInvoker {
  private final Duration timeout;
  private volatile LambdaClient client;

  LambdaSelfInvoker(Duration timeout) {
    this.timeout = timeout;
  }

  @Override
  public void invokeAsync(String functionArn, String payload) {
    int status =
        client()
            .invoke(
                r ->
                    r.functionName(functionArn)
                        .invocationType(InvocationType.EVENT)
                        .payload(SdkBytes.fromUtf8String(payload)))
            .statusCode();
    if (status != 202) {
      throw new IllegalStateException(
          "Lambda answered " + status + " to an asynchronous Invoke of " + functionArn);
    }
  }

  private LambdaClient client() {
    LambdaClient built = client;
    if (built == null) {
      synchronized (this) {
        built = client;
        if (built == null) {
          built =
              LambdaClient.builder()
                  .httpClientBuilder(
                      UrlConnectionHttpClient.builder()
                          .connectionTimeout(Duration.ofSeconds(2))
                          .socketTimeout(timeout))
                  .overrideConfiguration(o -> o.apiCallTimeout(timeout))
                  .build();
          client = built;
        }
      }
    }
    return built;
  }
}
