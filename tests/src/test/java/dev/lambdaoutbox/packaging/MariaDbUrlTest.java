package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * MariaDB as the packaged functions reach it: through a {@code jdbc:mysql:} URL and the packaged
 * MySQL Connector/J. A {@code jdbc:mariadb:} URL, for which no driver is packaged, is refused when
 * the function starts, with the URL that works, instead of failing at the first claim.
 */
class MariaDbUrlTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void pollerJar_onMariaDb_throughAMysqlUrl_publishes() throws Exception {
    TestDatabase mariadb = TestEndpoints.mysql();
    assertThat(mariadb.jdbcUrl()).startsWith("jdbc:mysql:");
    AwsEndpoint aws = TestEndpoints.aws();
    OutboxTables tables = mariadb.createTables("mdburl");
    try (SqsClient sqs = aws.sqs()) {
      String queue = sqs.createQueue(r -> r.queueName("mdburl-" + UUID.randomUUID())).queueUrl();
      try {
        OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
        mariadb
            .jdbi()
            .useTransaction(
                h ->
                    writer.append(
                        h,
                        OutboxEvent.builder()
                            .aggregateType("reservation")
                            .aggregateId("r-1")
                            .eventType("reservation.created")
                            .payload("{\"n\":1}")
                            .build()));
        Map<String, String> env = environment(mariadb.jdbcUrl(), mariadb, tables, aws);
        env.put("OUTBOX_DEFAULT_DESTINATION", queue);

        LambdaRuntimeEmulator.Result result = invokePoller(env);

        assertThat(result.failed()).as(result.body()).isFalse();
        assertThat(new ObjectMapper().readTree(result.body()).get("published").asInt())
            .isEqualTo(1);
      } finally {
        sqs.deleteQueue(r -> r.queueUrl(queue));
      }
    } finally {
      mariadb.dropTables(tables);
    }
  }

  @Test
  void pollerJar_withAMariadbUrl_failsToStart_namingTheMysqlUrlThatWorks() throws Exception {
    TestDatabase mariadb = TestEndpoints.mysql();
    String mariadbUrl = mariadb.jdbcUrl().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
    Map<String, String> env =
        environment(mariadbUrl, mariadb, OutboxTables.defaults(), TestEndpoints.aws());

    LambdaRuntimeEmulator.Result result = invokePoller(env);

    assertThat(result.failed()).isTrue();
    assertThat(result.errorType()).isEqualTo("Runtime.InitError");
    assertThat(result.body())
        .contains("OUTBOX_JDBC_URL")
        .contains(mariadbUrl.replaceFirst("^jdbc:mariadb:", "jdbc:mysql:"));
  }

  private static LambdaRuntimeEmulator.Result invokePoller(Map<String, String> env)
      throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction ignored =
            PackagedFunction.start(
                OutboxFunction.POLLER.module(), OutboxFunction.POLLER.handler(), env, runtime)) {
      return runtime.invoke(
          Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json")),
          TIMEOUT);
    }
  }

  private static Map<String, String> environment(
      String url, TestDatabase db, OutboxTables tables, AwsEndpoint aws) {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", url);
    env.put("OUTBOX_DB_USER", db.user());
    env.put("OUTBOX_DB_PASSWORD", db.password());
    env.put("OUTBOX_TABLE_PREFIX", tables.prefix());
    env.putAll(aws.environment());
    return env;
  }
}
