package dev.lambdaoutbox.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.CommittedEvents;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxTables;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The deployable jars ({@code *-lambda.jar}) as Lambda runs them: each in its own JVM, under AWS's
 * runtime interface client, with only the jar on its class path, configured by environment
 * variables alone.
 */
class PackagedFunctionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final String POLLER = "dev.lambdaoutbox.poller.PollerHandler::handleRequest";
  private static final String REPROCESSOR =
      "dev.lambdaoutbox.reprocessor.DeadLetterReprocessorHandler::handleRequest";

  private static TestDatabase db;
  private static AwsEndpoint aws;
  private static OutboxTables tables;
  private static SqsClient sqs;

  @BeforeAll
  static void setUp() {
    db = TestEndpoints.postgres();
    aws = TestEndpoints.aws();
    tables = db.createTables("pkg");
    sqs = aws.sqs();
  }

  @AfterAll
  static void tearDown() {
    sqs.close();
    db.dropTables(tables);
  }

  @Test
  void pollerJar_publishesCommittedEventsToSqs() throws Exception {
    String queueUrl = sqs.createQueue(r -> r.queueName("pkg-" + UUID.randomUUID())).queueUrl();
    Set<String> written = new HashSet<>(CommittedEvents.write(db, tables, 3, 3));

    Map<String, String> env = baseEnvironment();
    env.put("OUTBOX_DEFAULT_DESTINATION", queueUrl);
    LambdaRuntimeEmulator.Result result;
    String output;
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction poller = PackagedFunction.start("poller-function", POLLER, env, runtime)) {
      String event =
          Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
      result = runtime.invoke(event, TIMEOUT);
      output = poller.output();
    }

    assertThat(result.failed()).as("poller error: %s\n%s", result.body(), output).isFalse();
    JsonNode summary = JSON.readTree(result.body());
    assertThat(summary.get("claimed").asInt()).isEqualTo(3);
    assertThat(summary.get("published").asInt()).isEqualTo(3);
    assertThat(output).contains("\"CloudWatchMetrics\"");

    Set<String> received = new HashSet<>();
    for (int attempt = 0; attempt < 5 && received.size() < 3; attempt++) {
      List<Message> messages =
          sqs.receiveMessage(
                  r ->
                      r.queueUrl(queueUrl)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .messageAttributeNames("All"))
              .messages();
      messages.forEach(m -> received.add(m.messageAttributes().get("eventId").stringValue()));
    }
    assertThat(received).isEqualTo(written);
  }

  @Test
  void pollerJar_withoutJdbcUrl_failsInitialisationNamingTheVariable() throws Exception {
    Map<String, String> env = baseEnvironment();
    env.remove("OUTBOX_JDBC_URL");
    LambdaRuntimeEmulator.Result result;
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction poller = PackagedFunction.start("poller-function", POLLER, env, runtime)) {
      result = runtime.invoke("{}", TIMEOUT);
    }
    assertThat(result.failed()).isTrue();
    assertThat(result.body()).contains("OUTBOX_JDBC_URL");
  }

  @Test
  void reprocessorJar_listsDeadLettersAndRefusesBadRequests() throws Exception {
    try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
        PackagedFunction reprocessor =
            PackagedFunction.start(
                "dlq-reprocessor-function", REPROCESSOR, baseEnvironment(), runtime)) {
      LambdaRuntimeEmulator.Result list =
          runtime.invoke("{\"action\":\"list\",\"requestedBy\":\"test\"}", TIMEOUT);
      assertThat(list.failed())
          .as("list error: %s\n%s", list.body(), reprocessor.output())
          .isFalse();
      JsonNode report = JSON.readTree(list.body());
      assertThat(report.get("count").asInt()).isZero();
      assertThat(report.get("summary").get("total").asLong()).isZero();

      LambdaRuntimeEmulator.Result bad =
          runtime.invoke("{\"action\":\"replay\",\"idz\":[]}", TIMEOUT);
      assertThat(bad.failed()).isTrue();
      assertThat(bad.body()).contains("idz");
    }
  }

  private static Map<String, String> baseEnvironment() {
    return PackagedFunction.testBedEnvironment(db, tables, aws);
  }
}
