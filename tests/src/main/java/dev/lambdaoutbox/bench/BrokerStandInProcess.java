package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.poller.EmbeddedPoller;
import dev.lambdaoutbox.testing.AwsEndpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@link BrokerStandIn} in a child JVM of its own (this JVM's class path), so that the publisher's
 * CPU time is its own; its records read back over HTTP. As a {@link LatencyBroker}, "published" is
 * the moment the stand-in answered the call that carried the event.
 */
final class BrokerStandInProcess implements LatencyBroker {
  private final Process process;
  private final URI endpoint;
  private final AwsEndpoint aws;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Duration min;
  private final Duration max;
  private SqsClient sqs;
  private SnsClient sns;
  private int read;

  private BrokerStandInProcess(Process process, URI endpoint, Duration min, Duration max) {
    this.process = process;
    this.endpoint = endpoint;
    this.min = min;
    this.max = max;
    this.aws = new AwsEndpoint(endpoint, "us-east-1", "x", "x");
  }

  /** Starts the stand-in answering after {@code min..max}; returns once it listens. */
  static BrokerStandInProcess start(Duration min, Duration max) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process process =
        new ProcessBuilder(
                java,
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                BrokerStandIn.class.getName(),
                Long.toString(min.toMillis()),
                Long.toString(max.toMillis()))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    // Stopped with this JVM too, should it end without close() (an interrupted benchmark).
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (line == null || !line.startsWith("listening on ")) {
      process.destroy();
      throw new IllegalStateException("the broker stand-in did not start: " + line);
    }
    return new BrokerStandInProcess(
        process, URI.create(line.substring("listening on ".length()).strip()), min, max);
  }

  /** Its endpoint, region and test credentials, for SDK clients and a function's environment. */
  AwsEndpoint aws() {
    return aws;
  }

  /** What it has answered so far, and over how many connections. */
  record Stats(long calls, long messages, long callMicros, long connections) {
    double meanCallMillis() {
      return calls == 0 ? 0 : callMicros / 1000.0 / calls;
    }

    Stats since(Stats earlier) {
      return new Stats(
          calls - earlier.calls,
          messages - earlier.messages,
          callMicros - earlier.callMicros,
          connections - earlier.connections);
    }
  }

  Stats stats() throws IOException, InterruptedException {
    String[] f = get("/_standin/stats").strip().split(" ");
    return new Stats(
        Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
  }

  /** Acceptances recorded since the last call: event id and wall-clock micros. */
  List<String[]> newAcceptances() throws IOException, InterruptedException {
    List<String[]> out = new ArrayList<>();
    for (String line : get("/_standin/accepted?from=" + read).split("\n")) {
      if (!line.isBlank()) {
        out.add(line.split(" "));
      }
    }
    read += out.size();
    return out;
  }

  private String get(String path) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(endpoint.resolve(path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Override
  public String describe() {
    return String.format(
        "broker stand-in (child JVM) at %s answering after %d-%d ms: \"published\" = the moment"
            + " it answered the call (wall clock, microseconds)",
        endpoint, min.toMillis(), max.toMillis());
  }

  @Override
  public String newDestination() {
    return BrokerStandIn.queueUrl(
        endpoint, "latency-" + UUID.randomUUID().toString().substring(0, 8));
  }

  @Override
  public EmbeddedPoller.Builder publishFrom(EmbeddedPoller.Builder poller, EventTimes times) {
    if (sqs == null) {
      sqs = aws.sqs();
      sns = aws.sns();
    }
    return poller.brokers(sns, sqs);
  }

  @Override
  public void collect(String destination, EventTimes times, Duration atMost) throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    do {
      for (String[] a : newAcceptances()) {
        times.accepted(UUID.fromString(a[0]), Long.parseLong(a[1]));
      }
      if (times.acceptedCount() >= times.measured()) {
        return;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
  }

  @Override
  public void drop(String destination) {}

  @Override
  public OptionalInt port() {
    return OptionalInt.of(endpoint.getPort());
  }

  @Override
  public void close() {
    if (sqs != null) {
      sqs.close();
      sns.close();
    }
    stop(process);
  }

  /** Stops a child process: asked first, forced after 10 s. */
  static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
