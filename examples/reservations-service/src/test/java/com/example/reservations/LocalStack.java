package com.example.reservations;

import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The service and its stack on the local test bed: the packaged poller jar under the Lambda runtime
 * emulator (as the deployed stack runs it, publishing CloudEvents to a queue of its own), and the
 * service on a database of the test bed, waking that poller through the emulator's {@code Invoke}
 * endpoint after each commit. {@link RunLocally} starts it for a person, {@link
 * ReservationsServiceTest} for the build.
 */
final class LocalStack implements AutoCloseable {
  static final String EVENT_SOURCE = "/reservations-service";

  final TestDatabase db;
  final OutboxTables tables;
  final AwsEndpoint aws;
  final String queue;
  final LambdaRuntimeEmulator runtime;
  final PackagedFunction poller;
  final ConfigurableApplicationContext app;

  private LocalStack(
      TestDatabase db,
      OutboxTables tables,
      AwsEndpoint aws,
      String queue,
      LambdaRuntimeEmulator runtime,
      PackagedFunction poller,
      ConfigurableApplicationContext app) {
    this.db = db;
    this.tables = tables;
    this.aws = aws;
    this.queue = queue;
    this.runtime = runtime;
    this.poller = poller;
    this.app = app;
  }

  /**
   * Starts the poller and the service (on {@code port}, 0 for any) with tables under {@code
   * prefix}.
   */
  static LocalStack start(String prefix, String queueName, int port) throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = OutboxTables.withPrefix(prefix);
    AwsEndpoint aws = TestEndpoints.aws();
    String queue;
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName(queueName)).queueUrl();
    }
    LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator(Duration.ofSeconds(60));
    Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, aws);
    env.put("OUTBOX_DEFAULT_DESTINATION", queue);
    env.put("OUTBOX_MESSAGE_ENVELOPE", "cloudevents");
    env.put("OUTBOX_EVENT_SOURCE", EVENT_SOURCE);
    env.put("OUTBOX_LOG_LEVEL", "WARN");
    PackagedFunction poller =
        PackagedFunction.start(
            OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, runtime);
    // The SDK's own override for one service's endpoint: the waker's Lambda client calls the
    // emulator, every other client the test bed's endpoint.
    System.setProperty("aws.endpointUrlLambda", runtime.invokeEndpoint());
    // As command-line arguments, which win over application.yml.
    ConfigurableApplicationContext app =
        new SpringApplicationBuilder(ReservationsApplication.class)
            .run(
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--spring.datasource.username=" + db.user(),
                "--spring.datasource.password=" + db.password(),
                "--lambda-outbox.table-prefix=" + prefix,
                "--lambda-outbox.waker.function-name=outbox-poller:live",
                "--server.port=" + port);
    return new LocalStack(db, tables, aws, queue, runtime, poller, app);
  }

  int port() {
    return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
  }

  @Override
  public void close() {
    app.close();
    poller.close();
    runtime.close();
    System.clearProperty("aws.endpointUrlLambda");
  }
}
