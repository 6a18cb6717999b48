package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.QueueDrainer;
import dev.lambdaoutbox.testing.TcpForwarder;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The packaged poller, frozen between its invocations, finds every pooled connection cut when it
 * thaws, as a freeze longer than the network's idle timeout leaves them (NAT gateways reset a flow
 * idle for 350 s; Lambda purges idle connections): the database and the AWS endpoint are reached
 * through proxies that reset connections idle for a second ({@link TcpForwarder}), and the run
 * after a two-second freeze publishes as the first did, without an error.
 */
class FrozenPollerConnectionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(1);

  @Test
  void aRunAfterAFreezeLongerThanTheIdleTimeout_reconnectsAndPublishes() throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = db.createTables("frozen");
    AwsEndpoint aws = TestEndpoints.aws();
    String queue;
    try (SqsClient sqs = aws.sqs()) {
      queue = sqs.createQueue(r -> r.queueName("frozen-" + UUID.randomUUID())).queueUrl();
    }
    URI dbAddress = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    String scheduled =
        Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
    try (TcpForwarder dbProxy = TcpForwarder.to(dbAddress, IDLE_TIMEOUT);
        TcpForwarder awsProxy = TcpForwarder.to(aws.endpoint(), IDLE_TIMEOUT);
        QueueDrainer drainer = new QueueDrainer(aws, queue, 1);
        LambdaRuntimeEmulator runtime = LambdaRuntimeEmulator.of(OutboxFunction.POLLER)) {
      TestDatabase proxied =
          new TestDatabase(
              db.name(),
              db.dialect(),
              db.jdbcUrl().replace(dbAddress.getAuthority(), dbProxy.hostAndPort()),
              db.user(),
              db.password());
      Map<String, String> env = PackagedFunction.testBedEnvironment(proxied, tables, aws);
      env.put("AWS_ENDPOINT_URL", awsProxy.uri().toString());
      env.put("OUTBOX_DEFAULT_DESTINATION", queue);
      runtime.scaleOnDemand(
          e ->
              PackagedFunction.start(
                  OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, e),
          1);

      List<String> ids = new ArrayList<>();
      List<JsonNode> runs = new ArrayList<>();
      for (int run = 0; run < 2; run++) {
        if (run == 1) {
          Thread.sleep(IDLE_TIMEOUT.multipliedBy(2).toMillis()); // frozen, every flow idle
          assertThat(dbProxy.idleConnectionsCut()).as("database connections cut").isPositive();
          assertThat(awsProxy.idleConnectionsCut()).as("AWS connections cut").isPositive();
        }
        ids.addAll(CommittedEvents.write(db, tables, 3, 3));
        LambdaRuntimeEmulator.Result result = runtime.invoke(scheduled, Duration.ofSeconds(60));
        assertThat(result.failed()).as(result.body()).isFalse();
        runs.add(JSON.readTree(result.body()));
      }
      assertThat(drainer.awaitEvents(ids, Duration.ofSeconds(20))).isTrue();
      assertThat(runs).allSatisfy(r -> assertThat(r.get("published").asInt()).isEqualTo(3));
      assertThat(runtime.environmentsStarted())
          .as("one environment, frozen and thawed")
          .isEqualTo(1);
    } finally {
      try (SqsClient sqs = aws.sqs()) {
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
      db.dropTables(tables);
    }
  }
}
