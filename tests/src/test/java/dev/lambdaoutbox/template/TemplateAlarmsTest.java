package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.template.SamTemplate.StoreMode;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.DataApiEndpoint;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The stack's alarms and dashboard against what the functions really emit, in both store modes.
 * Both packaged jars run once per mode, as Lambda runs them (their own JVM, the runtime interface
 * client), with exactly the environment template.yaml gives them on its default parameters: over
 * JDBC with the database login in a Secrets Manager secret, over the Data API (the test bed's
 * emulator) with the emulator's cluster; the created topic stands in for the stack's own. Their EMF
 * lines are then the reference every alarm's and every dashboard widget's namespace, metric and
 * dimensions must match: renaming a metric in the code or in the template without the other fails
 * here.
 */
class TemplateAlarmsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final SamTemplate TEMPLATE = SamTemplate.load();

  private static TestDatabase db;
  private static AwsEndpoint aws;
  private static DataApiEndpoint dataApi;
  private static OutboxTables tables;
  private static OutboxTables dataApiTables;
  private static SnsClient sns;
  private static SqsClient sqs;
  private static SecretsManagerClient secrets;
  private static String stack;
  private static String topicArn;
  private static String queueUrl;
  private static String secretArn;
  private static SamTemplate.Resolved resolved;
  private static SamTemplate.Resolved resolvedDataApi;
  private static final List<UUID> published = new ArrayList<>();
  private static final Map<StoreMode, JsonNode> pollerSummaries = new EnumMap<>(StoreMode.class);
  private static final Map<StoreMode, List<JsonNode>> emitted = new EnumMap<>(StoreMode.class);

  @BeforeAll
  static void runBothFunctionsAsTheTemplateConfiguresThem() throws Exception {
    db = TestEndpoints.postgres();
    aws = TestEndpoints.aws();
    dataApi = TestEndpoints.dataApi();
    tables = db.createTables("tpl");
    dataApiTables = db.createTables("tplapi");
    sns = aws.sns();
    sqs = aws.sqs();
    secrets =
        aws.configure(SecretsManagerClient.builder())
            .httpClientBuilder(
                software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
            .build();
    String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    stack = "tpl-" + suffix;
    topicArn = sns.createTopic(r -> r.name(stack + "-outbox")).topicArn();
    queueUrl = sqs.createQueue(r -> r.queueName(stack + "-consumer")).queueUrl();
    AwsEndpoint.subscribeRaw(sns, sqs, topicArn, queueUrl);
    secretArn =
        secrets
            .createSecret(
                r ->
                    r.name(stack + "-db")
                        .secretString(
                            JSON.createObjectNode()
                                .put("username", db.user())
                                .put("password", db.password())
                                .toString()))
            .arn();

    resolved =
        TEMPLATE.resolve(
            Map.of(
                "JdbcUrl",
                db.jdbcUrl(),
                "DbSecretArn",
                secretArn,
                "TablePrefix",
                tables.prefix(),
                "SubnetIds",
                "subnet-1",
                "SecurityGroupIds",
                "sg-1"),
            stack,
            Map.of("OutboxTopic", topicArn));
    run(StoreMode.JDBC, resolved, tables, Map.of());

    // The emulator ignores the secret: it logs in as the test bed's user.
    resolvedDataApi =
        TEMPLATE.resolve(
            Map.of(
                "StoreMode",
                "data-api",
                "DataApiClusterArn",
                dataApi.resourceArn(),
                "DatabaseName",
                dataApi.database(),
                "DbSecretArn",
                dataApi.secretArn(),
                "TablePrefix",
                dataApiTables.prefix()),
            stack,
            Map.of("OutboxTopic", topicArn));
    run(
        StoreMode.DATA_API,
        resolvedDataApi,
        dataApiTables,
        Map.of("AWS_ENDPOINT_URL_RDS_DATA", dataApi.endpoint().toString()));
  }

  /**
   * Writes an event for the created topic and one for a topic that does not exist, then runs the
   * poller and the reprocessor ({@code list}) as {@code template} configures them.
   */
  private static void run(
      StoreMode mode,
      SamTemplate.Resolved template,
      OutboxTables tables,
      Map<String, String> runtimeEnvironment)
      throws Exception {
    OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
    OutboxEvent toDefault = event("reservation.created").build();
    OutboxEvent toMissingTopic =
        event("reservation.audited")
            .destination("arn:aws:sns:" + aws.region() + ":123456789012:" + stack + "-missing")
            .build();
    db.jdbi().useTransaction(h -> writer.appendAll(h, List.of(toDefault, toMissingTopic)));
    published.add(toDefault.id());

    TemplateFunction.Invocation poller =
        TemplateFunction.invoke(
            template,
            "PollerFunction",
            Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json")),
            TIMEOUT,
            aws,
            runtimeEnvironment);
    assertThat(poller.result().failed()).as("poller (%s): %s", mode, poller.output()).isFalse();
    pollerSummaries.put(mode, JSON.readTree(poller.result().body()));
    TemplateFunction.Invocation reprocessor =
        TemplateFunction.invoke(
            template,
            "DlqReprocessorFunction",
            "{\"action\":\"list\"}",
            TIMEOUT,
            aws,
            runtimeEnvironment);
    assertThat(reprocessor.result().failed())
        .as("reprocessor (%s): %s", mode, reprocessor.output())
        .isFalse();
    List<JsonNode> lines = new ArrayList<>(emfLines(poller.output()));
    lines.addAll(emfLines(reprocessor.output()));
    emitted.put(mode, lines);
  }

  @AfterAll
  static void tearDown() {
    if (sns != null) {
      sns.deleteTopic(r -> r.topicArn(topicArn));
      sqs.deleteQueue(r -> r.queueUrl(queueUrl));
      secrets.deleteSecret(r -> r.secretId(secretArn).forceDeleteWithoutRecovery(true));
      sns.close();
      sqs.close();
      secrets.close();
    }
    if (tables != null) {
      db.dropTables(tables);
    }
    if (dataApiTables != null) {
      db.dropTables(dataApiTables);
    }
  }

  @Test
  void everyAlarm_notifiesTheAlarmTopic_whenItFiresAndWhenItClears() {
    Map<String, Map<String, Object>> alarms = resolved.resourcesOfType("AWS::CloudWatch::Alarm");
    assertThat(alarms).isNotEmpty();
    assertThat(resolved.resources()).containsKey("AlarmTopic");
    alarms.forEach(
        (name, alarm) -> {
          Map<String, Object> p = SamTemplate.map(alarm.get("Properties"));
          assertThat(p.get("AlarmActions"))
              .as(name)
              .asInstanceOf(InstanceOfAssertFactories.LIST)
              .contains("arn-of-AlarmTopic");
          assertThat(p.get("OKActions"))
              .as(name)
              .asInstanceOf(InstanceOfAssertFactories.LIST)
              .contains("arn-of-AlarmTopic");
        });
  }

  @Test
  void theAlarms_areTheOnesOperatorsActOn_andNotifyOnEveryNewEpisode() {
    Map<String, Map<String, Object>> alarms = resolved.resourcesOfType("AWS::CloudWatch::Alarm");
    assertThat(alarms.keySet())
        .containsExactlyInAnyOrder(
            "DeadLetteredAlarm",
            "OldestUnpublishedAgeAlarm",
            "DestinationDownAlarm",
            "ParkedKeysAlarm",
            "WaitingOnMisconfiguredAlarm",
            "PollerErrorsAlarm");
    assertThat(resolved.properties("WaitingOnMisconfiguredAlarm"))
        .as("rows waiting for a destination an operator must fix: on while any waits, at once")
        .containsEntry("MetricName", "WaitingOnMisconfigured")
        .containsEntry("Statistic", "Maximum")
        .containsEntry("EvaluationPeriods", 1)
        .containsEntry("ComparisonOperator", "GreaterThanThreshold")
        .containsEntry("TreatMissingData", "ignore");
    assertThat(String.valueOf(resolved.properties("WaitingOnMisconfiguredAlarm").get("Threshold")))
        .isEqualTo("0");
    assertThat(resolved.properties("ParkedKeysAlarm"))
        .as("an aggregate parked behind a dead letter waits for an operator")
        .containsEntry("MetricName", "ParkedKeys")
        .containsEntry("Statistic", "Maximum")
        .containsEntry("ComparisonOperator", "GreaterThanThreshold");
    assertThat(String.valueOf(resolved.properties("ParkedKeysAlarm").get("Threshold")))
        .isEqualTo("0");
    Map<String, Object> deadLettered = resolved.properties("DeadLetteredAlarm");
    assertThat(deadLettered)
        .as("new dead letters, not a latched backlog: OK again after a quiet minute")
        .containsEntry("MetricName", "DeadLettered")
        .containsEntry("Statistic", "Sum")
        .containsEntry("Period", 60)
        .containsEntry("TreatMissingData", "notBreaching");
    assertThat(resolved.properties("OldestUnpublishedAgeAlarm"))
        .as("a poller that stopped reporting alarms too")
        .containsEntry("MetricName", "OldestUnpublishedAgeSeconds")
        .containsEntry("TreatMissingData", "breaching");
    assertThat(resolved.properties("DestinationDownAlarm"))
        .containsEntry("MetricName", "DestinationsDown")
        .containsEntry("Statistic", "Maximum")
        .containsEntry("EvaluationPeriods", 3)
        .containsEntry("DatapointsToAlarm", 3)
        .containsEntry("ComparisonOperator", "GreaterThanOrEqualToThreshold");
    assertThat(String.valueOf(resolved.properties("DestinationDownAlarm").get("Threshold")))
        .isEqualTo("1");
    // The runs above: one row to a missing topic, so the poller reported that destination down,
    // and the row waiting for it.
    emitted.forEach(
        (mode, lines) -> {
          assertThat(
                  lines.stream()
                      .filter(l -> l.has("DestinationsDown"))
                      .map(l -> l.get("DestinationsDown").asInt()))
              .as(mode.value)
              .containsExactly(1);
          assertThat(
                  lines.stream()
                      .filter(l -> l.has("WaitingOnMisconfigured"))
                      .map(l -> l.get("WaitingOnMisconfigured").asInt()))
              .as(mode.value)
              .containsExactly(1);
        });
    assertThat(emitted).containsOnlyKeys(StoreMode.values());
  }

  @Test
  void alarmEmail_subscribesToTheAlarmTopic_onlyWhenGiven() {
    assertThat(resolved.resources()).doesNotContainKey("AlarmEmailSubscription");
    SamTemplate.Resolved withEmail =
        TEMPLATE.resolve(
            SamTemplate.requiredParameters("AlarmEmail", "oncall@example.com"), stack, Map.of());
    assertThat(withEmail.properties("AlarmEmailSubscription"))
        .containsEntry("TopicArn", "arn-of-AlarmTopic")
        .containsEntry("Protocol", "email")
        .containsEntry("Endpoint", "oncall@example.com");
  }

  @Test
  void alarms_areTheSameInBothStoreModes() {
    assertThat(resolvedDataApi.resourcesOfType("AWS::CloudWatch::Alarm"))
        .isNotEmpty()
        .isEqualTo(resolved.resourcesOfType("AWS::CloudWatch::Alarm"));
    assertThat(resolvedDataApi.resourcesOfType("AWS::SNS::Topic"))
        .isEqualTo(resolved.resourcesOfType("AWS::SNS::Topic"));
    assertThat(resolvedDataApi.outputs()).isEqualTo(resolved.outputs());
  }

  @ParameterizedTest
  @EnumSource(StoreMode.class)
  void everyAlarm_watchesAMetricTheFunctionsEmit_withExactlyItsDimensions(StoreMode mode) {
    List<JsonNode> emitted = TemplateAlarmsTest.emitted.get(mode);
    assertThat(emitted).as("EMF lines of both functions").hasSizeGreaterThanOrEqualTo(2);
    (mode == StoreMode.JDBC ? resolved : resolvedDataApi)
        .resourcesOfType("AWS::CloudWatch::Alarm")
        .forEach(
            (name, alarm) -> {
              Map<String, Object> p = SamTemplate.map(alarm.get("Properties"));
              assertThat(p)
                  .as(name + " uses one metric, not metric math")
                  .containsKey("MetricName");
              assertEmitted(
                  name,
                  String.valueOf(p.get("Namespace")),
                  String.valueOf(p.get("MetricName")),
                  dimensions(p.get("Dimensions")),
                  emitted);
            });
  }

  @ParameterizedTest
  @EnumSource(StoreMode.class)
  void everyDashboardMetric_isOneTheFunctionsEmit_withExactlyItsDimensions(StoreMode mode)
      throws Exception {
    List<JsonNode> emitted = TemplateAlarmsTest.emitted.get(mode);
    List<JsonNode> metrics = dashboardMetrics(mode == StoreMode.JDBC ? resolved : resolvedDataApi);
    assertThat(metrics).hasSizeGreaterThanOrEqualTo(10);
    for (JsonNode metric : metrics) {
      String namespace = metric.get(0).asText();
      String name = metric.get(1).asText();
      Map<String, String> dimensions = new TreeMap<>();
      for (int i = 2; i + 1 < metric.size() && metric.get(i).isTextual(); i += 2) {
        dimensions.put(metric.get(i).asText(), metric.get(i + 1).asText());
      }
      assertEmitted("the dashboard", namespace, name, dimensions, emitted);
    }
  }

  /**
   * {@code who} reads a metric the functions emitted, with exactly these dimensions; for Lambda's
   * own metrics (AWS/Lambda), the dimension names one of the stack's functions.
   */
  private static void assertEmitted(
      String who,
      String namespace,
      String metric,
      Map<String, String> dimensions,
      List<JsonNode> emitted) {
    if (namespace.equals("AWS/Lambda")) {
      assertThat(dimensions).as(who).containsOnlyKeys("FunctionName");
      assertThat(resolved.resourcesOfType("AWS::Serverless::Function").keySet())
          .as(who)
          .contains(dimensions.get("FunctionName").replace("arn-of-", ""));
      return;
    }
    assertThat(
            emitted.stream()
                .filter(line -> emits(line, namespace, metric))
                .filter(line -> lineDimensions(line).equals(dimensions))
                .toList())
        .as(
            "%s reads %s %s %s; the functions emitted %s",
            who, namespace, metric, dimensions, describe(emitted))
        .isNotEmpty();
  }

  @Test
  void theDashboard_showsEveryAlarmsMetric_theLatencyPercentiles_andBothFunctionsErrors()
      throws Exception {
    List<String> shown = new ArrayList<>();
    for (JsonNode metric : dashboardMetrics(resolved)) {
      String stat = metric.get(metric.size() - 1).path("stat").asText();
      shown.add(metric.get(1).asText() + " " + stat + " " + metric.get(3).asText());
    }
    resolved
        .resourcesOfType("AWS::CloudWatch::Alarm")
        .forEach(
            (name, alarm) -> {
              Map<String, Object> p = SamTemplate.map(alarm.get("Properties"));
              String dimension = dimensions(p.get("Dimensions")).values().iterator().next();
              assertThat(shown)
                  .as(name)
                  .contains(p.get("MetricName") + " " + p.get("Statistic") + " " + dimension);
            });
    assertThat(shown)
        .contains(
            "PublishLatencyMs p50 " + stack + "-poller",
            "PublishLatencyMs p99 " + stack + "-poller",
            "Published Sum " + stack + "-poller",
            "Invocations Sum arn-of-PollerFunction",
            "Errors Sum arn-of-DlqReprocessorFunction");
    assertThat(resolved.properties("OutboxDashboard"))
        .containsEntry("DashboardName", stack + "-outbox");
    assertThat(resolved.outputs()).containsKey("DashboardUrl");
    SamTemplate.Resolved without =
        TEMPLATE.resolve(SamTemplate.requiredParameters("Dashboard", "false"), stack, Map.of());
    assertThat(without.resources()).doesNotContainKey("OutboxDashboard");
    assertThat(without.outputs()).doesNotContainKey("DashboardUrl");
  }

  @Test
  void twoStacks_watchOnlyTheirOwnMetrics() {
    SamTemplate.Resolved other =
        TEMPLATE.resolve(SamTemplate.requiredParameters(), "other-" + stack, Map.of());
    assertThat(other.environment("PollerFunction").get("OUTBOX_SERVICE_NAME"))
        .isNotEqualTo(resolved.environment("PollerFunction").get("OUTBOX_SERVICE_NAME"));
    resolved
        .resourcesOfType("AWS::CloudWatch::Alarm")
        .forEach(
            (name, alarm) -> {
              Map<String, Object> mine = SamTemplate.map(alarm.get("Properties"));
              if (String.valueOf(mine.get("Namespace")).startsWith("AWS/")) {
                return; // AWS's metrics name the stack's own function, whose name is unique
              }
              assertThat(dimensions(other.properties(name).get("Dimensions")))
                  .as(name)
                  .isNotEqualTo(dimensions(mine.get("Dimensions")));
            });
  }

  @Test
  void defaults_publishToTheCreatedTopic_andLeaveAMissingTopicsRowWaiting_notDeadLettered() {
    pollerSummaries.forEach(
        (mode, summary) -> {
          assertThat(summary.get("claimed").asInt()).as(mode.value).isEqualTo(2);
          assertThat(summary.get("published").asInt()).as(mode.value).isEqualTo(1);
          assertThat(summary.get("deferred").asInt()).as(mode.value).isEqualTo(1);
          assertThat(summary.get("deadLettered").asInt()).as(mode.value).isZero();
        });
    assertThat(pollerSummaries).containsOnlyKeys(StoreMode.values());
    List<String> received = new ArrayList<>();
    for (int i = 0; i < 10 && received.size() < published.size(); i++) {
      for (Message m :
          sqs.receiveMessage(
                  r ->
                      r.queueUrl(queueUrl)
                          .waitTimeSeconds(1)
                          .maxNumberOfMessages(10)
                          .messageAttributeNames("All"))
              .messages()) {
        received.add(m.messageAttributes().get("eventId").stringValue());
      }
    }
    assertThat(received)
        .containsExactlyInAnyOrderElementsOf(published.stream().map(UUID::toString).toList());
  }

  // ---- running the packaged functions as the template configures them

  private static OutboxEvent.Builder event(String type) {
    return OutboxEvent.builder()
        .aggregateType("reservation")
        .aggregateId("r-" + UUID.randomUUID())
        .eventType(type)
        .payload("{\"ok\":true}");
  }

  // ---- the dashboard

  /**
   * Every metric of every widget of the dashboard, as written: namespace, name, dimensions,
   * options.
   */
  private static List<JsonNode> dashboardMetrics(SamTemplate.Resolved template) throws Exception {
    JsonNode body =
        JSON.readTree(String.valueOf(template.properties("OutboxDashboard").get("DashboardBody")));
    List<JsonNode> metrics = new ArrayList<>();
    for (JsonNode widget : body.get("widgets")) {
      widget.at("/properties/metrics").forEach(metrics::add);
    }
    return metrics;
  }

  // ---- EMF

  private static List<JsonNode> emfLines(String output) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : output.split("\n")) {
      if (line.startsWith("{") && line.contains("\"_aws\"")) {
        lines.add(JSON.readTree(line));
      }
    }
    return lines;
  }

  private static boolean emits(JsonNode line, String namespace, String metric) {
    for (JsonNode directive : line.path("_aws").path("CloudWatchMetrics")) {
      if (directive.path("Namespace").asText().equals(namespace)) {
        for (JsonNode m : directive.path("Metrics")) {
          if (m.path("Name").asText().equals(metric) && line.has(metric)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The dimension names of the line's (single) dimension set, with their values. */
  private static Map<String, String> lineDimensions(JsonNode line) {
    Map<String, String> dimensions = new TreeMap<>();
    JsonNode set = line.path("_aws").path("CloudWatchMetrics").path(0).path("Dimensions").path(0);
    for (JsonNode name : set) {
      dimensions.put(name.asText(), line.path(name.asText()).asText());
    }
    return dimensions;
  }

  private static Map<String, String> dimensions(Object alarmDimensions) {
    Map<String, String> dimensions = new TreeMap<>();
    for (Object d : (List<?>) alarmDimensions) {
      Map<String, Object> dimension = SamTemplate.map(d);
      dimensions.put(String.valueOf(dimension.get("Name")), String.valueOf(dimension.get("Value")));
    }
    return dimensions;
  }

  private static List<String> describe(List<JsonNode> lines) {
    List<String> described = new ArrayList<>();
    for (JsonNode line : lines) {
      List<String> metrics = new ArrayList<>();
      line.path("_aws")
          .path("CloudWatchMetrics")
          .path(0)
          .path("Metrics")
          .forEach(m -> metrics.add(m.path("Name").asText()));
      described.add(
          line.path("_aws").path("CloudWatchMetrics").path(0).path("Namespace").asText()
              + " "
              + lineDimensions(line)
              + " "
              + metrics);
    }
    return described;
  }
}
