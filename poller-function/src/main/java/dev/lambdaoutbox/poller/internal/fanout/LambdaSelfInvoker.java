package dev.lambdaoutbox.poller.internal.fanout;

import java.util.Objects;
import java.util.function.Supplier;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;

/**
 * The real {@link SelfInvoker}: Lambda's asynchronous {@code Invoke} through the SDK's client,
 * which the composition root supplies and this builds on the first invocation it starts, so a
 * poller that never scales out loads none of it (a cold start pays nothing for it).
 */
public final class LambdaSelfInvoker implements SelfInvoker {
  private final Supplier<LambdaClient> factory;
  private volatile LambdaClient client;

  /**
   * @param factory builds the client, once, on the first invocation started
   */
  public LambdaSelfInvoker(Supplier<LambdaClient> factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
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
          built = Objects.requireNonNull(factory.get(), "client");
          client = built;
        }
      }
    }
    return built;
  }
}
