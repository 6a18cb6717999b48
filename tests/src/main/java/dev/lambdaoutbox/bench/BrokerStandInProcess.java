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
import java.nio.file.Files;
import java.nio.file.Path;
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
  /** The password of the stand-in's throw-away key and trust stores. */
  private static final String STORE_PASSWORD = "standin";

  private final Process process;
  private final URI endpoint;
  private final AwsEndpoint aws;
  private final String clientToolOptions;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Duration min;
  private final Duration max;
  private SqsClient sqs;
  private SnsClient sns;
  private int read;

  private BrokerStandInProcess(
      Process process,
      URI endpoint,
      URI clientEndpoint,
      String clientToolOptions,
      Duration min,
      Duration max) {
    this.process = process;
    this.endpoint = endpoint;
    this.clientToolOptions = clientToolOptions;
    this.min = min;
    this.max = max;
    this.aws = new AwsEndpoint(clientEndpoint, "us-east-1", "x", "x");
  }

  /** Starts the stand-in answering after {@code min..max} over HTTP; returns once it listens. */
  static BrokerStandInProcess start(Duration min, Duration max) throws IOException {
    return start(min, max, false);
  }

  /**
   * Starts the stand-in answering after {@code min..max}; with {@code tls}, SDK clients reach it
   * over HTTPS (a self-signed RSA 2048 certificate for 127.0.0.1, made with the JDK's {@code
   * keytool}; a client JVM trusts it with {@link #clientToolOptions()}). Returns once it listens.
   */
  static BrokerStandInProcess start(Duration min, Duration max, boolean tls) throws IOException {
    Path javaPath = Path.of(ProcessHandle.current().info().command().orElse("java"));
    List<String> command =
        new ArrayList<>(
            List.of(
                javaPath.toString(),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                BrokerStandIn.class.getName(),
                Long.toString(min.toMillis()),
                Long.toString(max.toMillis()),
                "0"));
    String toolOptions = "";
    if (tls) {
      Path dir = Files.createTempDirectory("standin-tls");
      Path keys = dir.resolve("standin.p12");
      Path trust = dir.resolve("trust.p12");
      Path cert = dir.resolve("standin.crt");
      Path keytool = javaPath.resolveSibling("keytool");
      keytool(
          keytool,
          "-genkeypair",
          "-alias",
          "standin",
          "-keyalg",
          "RSA",
          "-keysize",
          "2048",
          "-dname",
          "CN=127.0.0.1",
          "-ext",
          "san=ip:127.0.0.1",
          "-validity",
          "7",
          "-keystore",
          keys.toString(),
          "-storetype",
          "PKCS12",
          "-storepass",
          STORE_PASSWORD);
      keytool(
          keytool,
          "-exportcert",
          "-alias",
          "standin",
          "-keystore",
          keys.toString(),
          "-storepass",
          STORE_PASSWORD,
          "-file",
          cert.toString());
      keytool(
          keytool,
          "-importcert",
          "-noprompt",
          "-alias",
          "standin",
          "-file",
          cert.toString(),
          "-keystore",
          trust.toString(),
          "-storetype",
          "PKCS12",
          "-storepass",
          STORE_PASSWORD);
      command.add(keys.toString());
      command.add(STORE_PASSWORD);
      toolOptions =
          "-Djavax.net.ssl.trustStore="
              + trust
              + " -Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword="
              + STORE_PASSWORD;
    }
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    // Stopped with this JVM too, should it end without close() (an interrupted benchmark).
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (line == null || !line.startsWith("listening on ")) {
      process.destroy();
      throw new IllegalStateException("the broker stand-in did not start: " + line);
    }
    String[] endpoints = line.substring("listening on ".length()).strip().split(" ");
    URI control = URI.create(endpoints[0]);
    URI client = endpoints.length > 1 ? URI.create(endpoints[1]) : control;
    return new BrokerStandInProcess(process, control, client, toolOptions, min, max);
  }

  private static void keytool(Path keytool, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(keytool.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IllegalStateException("keytool " + args[0] + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while keytool ran", e);
    }
  }

  /**
   * What a client JVM needs in {@code JAVA_TOOL_OPTIONS} (or as system properties, before its first
   * TLS connection) to trust the stand-in over HTTPS; empty over HTTP.
   */
  String clientToolOptions() {
    return clientToolOptions;
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
        aws.endpoint(), min.toMillis(), max.toMillis());
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
