package dev.lambdaoutbox.bench;

import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * ElasticMQ (SQS only) in a child JVM of its own, on a free port of 127.0.0.1, from its jars on
 * Maven Central: {@code tests/elasticmq/pom.xml} names the server, and Maven resolves it and its
 * dependencies once (into the local repository) and writes their class path to {@code
 * tests/target/elasticmq-classpath.txt}. Stopped, and its state gone, on {@link #close()}.
 */
final class ElasticMq implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(90);

  private final Process process;
  private final AwsEndpoint endpoint;
  private final Path log;

  private ElasticMq(Process process, AwsEndpoint endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  /** Starts ElasticMQ and waits until it answers. */
  static ElasticMq start() throws Exception {
    Path root = PackagedFunction.projectRoot();
    String classPath = classPath(root);
    int port = freePort();
    Path dir = Files.createTempDirectory("elasticmq-");
    Path config = dir.resolve("elasticmq.conf");
    Files.writeString(
        config,
        String.join(
            "\n",
            "include classpath(\"application.conf\")",
            "node-address { protocol = http, host = \"127.0.0.1\", port = "
                + port
                + ", context-path = \"\" }",
            "rest-sqs { enabled = true, bind-port = "
                + port
                + ", bind-hostname = \"127.0.0.1\", sqs-limits = strict }",
            "rest-stats { enabled = false }",
            "generate-node-address = false",
            "aws { region = \"us-east-1\", accountId = \"000000000000\" }",
            ""));
    Path log = dir.resolve("elasticmq.log");
    String java = ProcessHandle.current().info().command().orElse("java");
    Process process =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx1g",
                    "-Dconfig.file=" + config,
                    "-cp",
                    classPath,
                    "org.elasticmq.server.Main"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    // Stopped with this JVM too, should it end without close() (an interrupted benchmark).
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
    AwsEndpoint endpoint =
        new AwsEndpoint(URI.create("http://127.0.0.1:" + port), "us-east-1", "x", "x");
    ElasticMq server = new ElasticMq(process, endpoint, log);
    server.awaitReady();
    return server;
  }

  AwsEndpoint endpoint() {
    return endpoint;
  }

  /**
   * Sends {@code messages} messages, 10 a call from 4 threads, to a scratch queue and drops it: a
   * fresh ElasticMQ JVM is slow until its JIT has compiled the send path (a first measurement saw
   * publish calls of seconds), and that is not what a benchmark means to measure.
   */
  ElasticMq warmUp(int messages) throws Exception {
    try (SqsClient sqs = endpoint.sqs()) {
      String queue = sqs.createQueue(r -> r.queueName("warm-up")).queueUrl();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> senders = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          senders.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < messages / 40; i++) {
                      List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
                      for (int e = 0; e < 10; e++) {
                        entries.add(
                            SendMessageBatchRequestEntry.builder()
                                .id("m" + e)
                                .messageBody("{\"warm\":" + i + "}")
                                .build());
                      }
                      sqs.sendMessageBatch(r -> r.queueUrl(queue).entries(entries));
                    }
                    return null;
                  }));
        }
        for (Future<?> f : senders) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
    }
    return this;
  }

  private void awaitReady() throws Exception {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    try (SqsClient sqs = endpoint.sqs()) {
      while (true) {
        try {
          sqs.listQueues();
          return;
        } catch (SdkException e) {
          if (!process.isAlive() || System.nanoTime() > deadline) {
            close();
            throw new IllegalStateException(
                "ElasticMQ did not answer at "
                    + endpoint.endpoint()
                    + "; its log:\n"
                    + Files.readString(log),
                e);
          }
          Thread.sleep(200);
        }
      }
    }
  }

  /** The server's class path, resolved by Maven on first use. */
  private static String classPath(Path root) throws IOException, InterruptedException {
    Path file = root.resolve("tests/target/elasticmq-classpath.txt");
    if (!Files.exists(file)) {
      Process mvn =
          new ProcessBuilder(
                  root.resolve("mvnw").toString(),
                  "-q",
                  "-B",
                  "-f",
                  root.resolve("tests/elasticmq/pom.xml").toString(),
                  "dependency:build-classpath",
                  "-Dmdep.outputFile=" + file)
              .inheritIO()
              .start();
      if (mvn.waitFor() != 0 || !Files.exists(file)) {
        throw new IllegalStateException(
            "could not resolve ElasticMQ's jars with tests/elasticmq/pom.xml (Maven Central"
                + " needed once)");
      }
    }
    return Files.readString(file).strip();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    BrokerStandInProcess.stop(process);
  }
}
