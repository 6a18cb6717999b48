package dev.lambdaoutbox.testing;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Lambda function that shows what its execution environment went through, for the tests of {@link
 * LambdaRuntimeEmulator}: it answers its process id and how often a background thread of its own
 * has ticked (every 10 ms, started by the constructor, so in the init phase), which stands still
 * while the environment is frozen. The event may ask it to sleep ({@code "sleepMs"}) or to fail
 * ({@code "fail": true}).
 */
public final class SandboxProbeFunction implements RequestStreamHandler {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final AtomicLong ticks = new AtomicLong();
  private final AtomicLong invocations = new AtomicLong();

  public SandboxProbeFunction() {
    Thread.ofPlatform()
        .daemon()
        .name("ticker")
        .start(
            () -> {
              while (true) {
                ticks.incrementAndGet();
                try {
                  Thread.sleep(10);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    JsonNode event = JSON.readTree(input);
    long invocation = invocations.incrementAndGet();
    if (event.path("fail").asBoolean()) {
      throw new IllegalStateException("failing as asked, invocation " + invocation);
    }
    try {
      Thread.sleep(event.path("sleepMs").asLong());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    output.write(
        ("{\"pid\":"
                + ProcessHandle.current().pid()
                + ",\"invocation\":"
                + invocation
                + ",\"ticks\":"
                + ticks.get()
                + "}")
            .getBytes(StandardCharsets.UTF_8));
  }
}
