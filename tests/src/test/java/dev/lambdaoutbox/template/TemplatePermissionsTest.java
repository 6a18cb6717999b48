package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.reprocessor.ReplayDestinations;
import dev.lambdaoutbox.template.SamTemplate.StoreMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the stack lets the functions do, and where events go, read from template.yaml resolved as
 * CloudFormation would resolve it for a few parameter sets in both store modes: least privilege by
 * default, exactly the destinations in use whichever way the functions reach the database, and a
 * stack that never dead-letters everything on its defaults.
 */
class TemplatePermissionsTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final String STACK = "outbox";
  private static final String KEY = "arn:aws:kms:us-east-1:123456789012:key/1111-2222";
  private static final String ORDERS = "arn:aws:sns:us-east-1:123456789012:orders";
  private static final String PAYMENTS = "arn:aws:sns:us-east-1:123456789012:payments";
  private static final String AUDIT_QUEUE = "arn:aws:sqs:us-east-1:123456789012:audit";
  private static final String ORDERS_BUS = "arn:aws:events:us-east-1:123456789012:event-bus/orders";
  private static final String AUDIT_BUS = "arn:aws:events:us-east-1:123456789012:event-bus/audit";
  private static final String VPC_NETWORKING = StackPolicies.NETWORK_INTERFACES;
  private static final String DATABASE_ACCESS = "arn-of-DatabaseAccessPolicy";
  private static final String ASYNC_FAILURE_QUEUE = "getatt-of-AsyncFailureQueue.Arn";
  private static final List<String> DATA_API_ACTIONS =
      List.of(
          "rds-data:BeginTransaction",
          "rds-data:ExecuteStatement",
          "rds-data:BatchExecuteStatement",
          "rds-data:CommitTransaction",
          "rds-data:RollbackTransaction");

  private static Map<String, String> required(String... more) {
    return SamTemplate.requiredParameters(more);
  }

  private static SamTemplate.Resolved resolve(Map<String, String> parameters) {
    return TEMPLATE.resolve(parameters, STACK, Map.of());
  }

  /** Where events go, as name and parameters besides the store mode's own. */
  private static final Map<String, String[]> DESTINATIONS =
      Map.of(
          "defaults",
          new String[] {},
          "FIFO topic with a customer key",
          new String[] {"OutboxTopicType", "fifo", "OutboxTopicKmsKey", KEY},
          "scale-out",
          new String[] {"MaxConcurrentPollers", "4", "ReprocessorReservedConcurrency", "2"},
          "existing destinations",
          new String[] {
            "OutboxTopicType", "none",
            "DefaultDestination", ORDERS,
            "PublishTopicArns", ORDERS + "," + PAYMENTS,
            "PublishQueueArns", AUDIT_QUEUE,
            "PublishKmsKeyArns", KEY
          },
          "event buses",
          new String[] {
            "OutboxTopicType",
            "none",
            "DefaultDestination",
            ORDERS_BUS,
            "PublishEventBusArns",
            ORDERS_BUS + "," + AUDIT_BUS
          });

  static Stream<Arguments> destinations() {
    return DESTINATIONS.keySet().stream().sorted().map(Arguments::of);
  }

  static Stream<Arguments> parameterSets() {
    return destinations()
        .flatMap(
            d ->
                Stream.of(StoreMode.values())
                    .map(
                        mode ->
                            Arguments.of(
                                d.get()[0] + ", " + mode,
                                SamTemplate.requiredParameters(
                                    mode, DESTINATIONS.get((String) d.get()[0])))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("parameterSets")
  void noPolicyStatement_namesAWildcardResource_unlessTheUserTypedOne(
      String name, Map<String, String> parameters) {
    SamTemplate.Resolved stack = resolve(parameters);
    assertThat(stack.ruleFailures()).as("the stack is accepted").isEmpty();
    List<String> resources = new ArrayList<>();
    for (Map<String, Object> statement : statements(stack)) {
      resources.addAll(strings(statement.get("Resource")));
    }
    assertThat(resources).isNotEmpty().noneMatch(r -> r.contains("*"));
  }

  /**
   * Over the Data API each function may do exactly what it may do over JDBC (publish to the same
   * destinations, use the same keys, read the same secret) and, besides, the Data API's five
   * actions on the one cluster.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("destinations")
  void dataApiMode_allowsWhatJdbcModeAllows_plusTheDataApiOnTheOneClusterOnly(String name) {
    String[] more = DESTINATIONS.get(name);
    SamTemplate.Resolved jdbc = resolve(SamTemplate.requiredParameters(StoreMode.JDBC, more));
    SamTemplate.Resolved dataApi =
        resolve(SamTemplate.requiredParameters(StoreMode.DATA_API, more));
    assertThat(dataApi.ruleFailures()).as("the stack is accepted").isEmpty();

    for (String function : List.of("PollerFunction", "DlqReprocessorFunction")) {
      Map<String, List<String>> expected = new LinkedHashMap<>(actions(jdbc, function));
      DATA_API_ACTIONS.forEach(a -> expected.put(a, List.of(SamTemplate.CLUSTER_ARN)));
      assertThat(actions(dataApi, function))
          .as(function)
          .containsExactlyInAnyOrderEntriesOf(expected);
    }
  }

  @Test
  void jdbcMode_runsTheFunctionsInTheVpc_andDataApiMode_outsideAnyVpc() {
    SamTemplate.Resolved jdbc = resolve(required());
    SamTemplate.Resolved dataApi = resolve(SamTemplate.requiredParameters(StoreMode.DATA_API));
    for (String function : List.of("PollerFunction", "DlqReprocessorFunction")) {
      assertThat(SamTemplate.map(jdbc.properties(function).get("VpcConfig")))
          .as(function)
          .containsEntry("SubnetIds", List.of("subnet-1", "subnet-2"))
          .containsEntry("SecurityGroupIds", List.of("sg-1"));
      assertThat(awsManagedPolicies(jdbc, function)).as(function).containsExactly(VPC_NETWORKING);

      assertThat(dataApi.properties(function)).as(function).doesNotContainKey("VpcConfig");
      assertThat(awsManagedPolicies(dataApi, function)).as(function).isEmpty();
    }
  }

  @Test
  void defaults_publishOnlyToTheCreatedTopic_whichIsTheDefaultDestination() {
    SamTemplate.Resolved stack = resolve(required());

    assertThat(actions(stack, "PollerFunction"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "secretsmanager:GetSecretValue", List.of(required().get("DbSecretArn")),
                "sns:Publish", List.of("arn-of-OutboxTopic")));
    assertThat(stack.environment("PollerFunction"))
        .containsEntry("OUTBOX_DEFAULT_DESTINATION", "arn-of-OutboxTopic")
        .containsEntry("OUTBOX_ROUTES", "{}");
    Map<String, Object> topic = stack.properties("OutboxTopic");
    assertThat(topic)
        .containsEntry("TopicName", "outbox-outbox")
        .containsEntry("KmsMasterKeyId", "alias/aws/sns")
        .doesNotContainKey("FifoTopic");
  }

  @Test
  void reprocessor_mayReadTheSecret_andTheAttributesOfWhatThePollerMayPublishTo_nothingElse() {
    SamTemplate.Resolved defaults = resolve(required());
    assertThat(actions(defaults, "DlqReprocessorFunction"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "secretsmanager:GetSecretValue", List.of(required().get("DbSecretArn")),
                "sns:GetTopicAttributes", List.of("arn-of-OutboxTopic")));
    assertThat(defaults.environment("DlqReprocessorFunction"))
        .containsEntry("OUTBOX_REPLAY_DESTINATIONS", "arn-of-OutboxTopic,,")
        .containsEntry("OUTBOX_ORDERING", "none");

    SamTemplate.Resolved existing =
        resolve(
            required(
                "OutboxTopicType",
                "none",
                "DefaultDestination",
                ORDERS,
                "PublishTopicArns",
                ORDERS + "," + PAYMENTS,
                "PublishQueueArns",
                AUDIT_QUEUE));
    assertThat(actions(existing, "DlqReprocessorFunction"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "secretsmanager:GetSecretValue", List.of(required().get("DbSecretArn")),
                "sns:GetTopicAttributes", List.of(ORDERS, PAYMENTS),
                "sqs:GetQueueAttributes", List.of(AUDIT_QUEUE)));
    assertThat(existing.environment("DlqReprocessorFunction"))
        .containsEntry(
            "OUTBOX_REPLAY_DESTINATIONS", "," + ORDERS + "," + PAYMENTS + "," + AUDIT_QUEUE);
  }

  @Test
  void replayDestinations_given_areAllTheReprocessorMayRead_andWhereEventsMayBeSentByHand() {
    String quarantine = "arn:aws:sns:us-east-1:123456789012:quarantine-*";
    SamTemplate.Resolved stack =
        resolve(
            required(
                "PublishTopicArns", ORDERS, "ReplayDestinations", quarantine + "," + AUDIT_QUEUE));

    assertThat(actions(stack, "DlqReprocessorFunction"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "secretsmanager:GetSecretValue", List.of(required().get("DbSecretArn")),
                "sns:GetTopicAttributes", List.of(quarantine, AUDIT_QUEUE),
                "sqs:GetQueueAttributes", List.of(quarantine, AUDIT_QUEUE)));
    assertThat(stack.environment("DlqReprocessorFunction"))
        .containsEntry("OUTBOX_REPLAY_DESTINATIONS", quarantine + "," + AUDIT_QUEUE);
    assertThat(ReplayDestinations.parse(quarantine + "," + AUDIT_QUEUE, "us-east-1").entries())
        .as("the reprocessor starts with what the stack gives it")
        .containsExactly(quarantine, AUDIT_QUEUE);
  }

  @Test
  void fifoTopicWithACustomerKey_isEncryptedWithIt_andThePollerMayUseTheKey() {
    SamTemplate.Resolved stack =
        resolve(required("OutboxTopicType", "fifo", "OutboxTopicKmsKey", KEY));

    assertThat(stack.properties("OutboxTopic"))
        .containsEntry("TopicName", "outbox-outbox.fifo")
        .containsEntry("FifoTopic", true)
        .containsEntry("ContentBasedDeduplication", false)
        .containsEntry("KmsMasterKeyId", KEY);
    Map<String, List<String>> actions = actions(stack, "PollerFunction");
    assertThat(actions.get("kms:GenerateDataKey")).containsExactly(KEY);
    assertThat(actions.get("kms:Decrypt")).containsExactly(KEY);
  }

  @Test
  void existingDestinations_areExactlyWhatThePollerMayPublishTo() {
    SamTemplate.Resolved stack =
        resolve(
            required(
                "OutboxTopicType", "none",
                "DefaultDestination", ORDERS,
                "PublishTopicArns", ORDERS + "," + PAYMENTS,
                "PublishQueueArns", AUDIT_QUEUE,
                "PublishKmsKeyArns", KEY));

    assertThat(stack.resources()).doesNotContainKey("OutboxTopic");
    assertThat(stack.outputs()).doesNotContainKey("OutboxTopicArn");
    Map<String, List<String>> actions = actions(stack, "PollerFunction");
    assertThat(actions.get("sns:Publish")).containsExactlyInAnyOrder(ORDERS, PAYMENTS);
    assertThat(actions.get("sqs:SendMessage")).containsExactly(AUDIT_QUEUE);
    assertThat(actions.get("kms:GenerateDataKey")).containsExactly(KEY);
    assertThat(stack.environment("PollerFunction"))
        .containsEntry("OUTBOX_DEFAULT_DESTINATION", ORDERS);
  }

  @Test
  void eventBuses_mayBePutOn_onlyThoseListed_andNothingElseIsPublishedTo() {
    SamTemplate.Resolved stack =
        resolve(
            required(
                "OutboxTopicType",
                "none",
                "DefaultDestination",
                ORDERS_BUS,
                "Routes",
                "{\"audit.*\":\"" + AUDIT_BUS + "\"}",
                "EventSource",
                "com.example.orders",
                "PublishEventBusArns",
                ORDERS_BUS + "," + AUDIT_BUS));

    assertThat(stack.ruleFailures()).as("a bus alone is a destination enough").isEmpty();
    Map<String, List<String>> actions = actions(stack, "PollerFunction");
    assertThat(actions.get("events:PutEvents")).containsExactlyInAnyOrder(ORDERS_BUS, AUDIT_BUS);
    assertThat(actions.get("events:DescribeEventBus"))
        .as("PutEvents drops events for a missing bus: the poller looks each one up first")
        .containsExactlyInAnyOrder(ORDERS_BUS, AUDIT_BUS);
    assertThat(actions).doesNotContainKeys("sns:Publish", "sqs:SendMessage");
    assertThat(stack.environment("PollerFunction"))
        .containsEntry("OUTBOX_DEFAULT_DESTINATION", ORDERS_BUS)
        .containsEntry("OUTBOX_EVENT_SOURCE", "com.example.orders");
    assertThat(actions(resolve(required()), "PollerFunction"))
        .as("no bus listed, no events:PutEvents")
        .doesNotContainKey("events:PutEvents");
    assertThat(actions(stack, "DlqReprocessorFunction"))
        .as("a bus is no replay destination: the reprocessor reads nothing of it")
        .doesNotContainKeys("events:PutEvents", "events:DescribeEventBus");
  }

  @Test
  void aWildcardTheUserTypes_isTakenAsTyped() {
    String pattern = "arn:aws:sns:us-east-1:123456789012:orders-*";
    SamTemplate.Resolved stack =
        resolve(
            required(
                "OutboxTopicType", "none",
                "DefaultDestination", ORDERS,
                "PublishTopicArns", pattern));

    assertThat(actions(stack, "PollerFunction").get("sns:Publish")).containsExactly(pattern);
  }

  @Test
  void withoutACreatedTopic_theStackIsRefused_unlessADestinationAndItsPermissionAreGiven() {
    assertThat(resolve(required("OutboxTopicType", "none")).ruleFailures())
        .hasSize(2)
        .anySatisfy(f -> assertThat(f).contains("DefaultDestination", "NO_DESTINATION"))
        .anySatisfy(
            f ->
                assertThat(f)
                    .contains("PublishTopicArns", "PublishQueueArns", "PublishEventBusArns"));
    assertThat(
            resolve(
                    required(
                        "OutboxTopicType", "none",
                        "DefaultDestination", ORDERS,
                        "PublishTopicArns", ORDERS))
                .ruleFailures())
        .isEmpty();
  }

  /**
   * What IAM refuses in a policy's {@code Resource} (an entry that is not an ARN, such as a queue's
   * URL or one with a space before it, or an empty one), which would fail the stack's creation, is
   * refused before: an ARN list takes only ARNs of its kind, and no empty entry unless it is empty.
   */
  @Test
  void arnListsIamWouldRefuse_areRefusedAtDeploy_byTheirPatternsAndARule() {
    Map<String, List<String>> refused =
        Map.of(
            "PublishTopicArns",
            List.of(" " + ORDERS, "*", AUDIT_QUEUE, "orders"),
            "PublishQueueArns",
            List.of("https://sqs.us-east-1.amazonaws.com/123456789012/audit", ORDERS),
            "PublishEventBusArns",
            List.of("orders", ORDERS),
            "PublishKmsKeyArns",
            List.of("arn:aws:kms:us-east-1:123456789012:alias/orders", "1111-2222"),
            "ReplayDestinations",
            List.of(ORDERS_BUS, "*", "https://sqs.us-east-1.amazonaws.com/123456789012/audit"));
    Map<String, List<String>> taken =
        Map.of(
            "PublishTopicArns", List.of("", ORDERS, "arn:aws:sns:*:123456789012:orders-*"),
            "PublishQueueArns", List.of("", AUDIT_QUEUE),
            "PublishEventBusArns", List.of("", ORDERS_BUS),
            "PublishKmsKeyArns", List.of("", KEY),
            "ReplayDestinations", List.of("", ORDERS, AUDIT_QUEUE));
    refused.forEach(
        (name, entries) -> {
          Pattern pattern =
              Pattern.compile(String.valueOf(TEMPLATE.parameter(name).get("AllowedPattern")));
          entries.forEach(
              e -> assertThat(pattern.matcher(e).matches()).as("%s '%s'", name, e).isFalse());
          taken
              .get(name)
              .forEach(
                  e -> assertThat(pattern.matcher(e).matches()).as("%s '%s'", name, e).isTrue());
          String valid = taken.get(name).get(1);
          assertThat(resolve(required(name, valid + ",")).ruleFailures())
              .as("%s with an empty entry", name)
              .anySatisfy(f -> assertThat(f).contains(name, "empty entry"));
          assertThat(resolve(required(name, valid + ",," + valid)).ruleFailures())
              .anySatisfy(f -> assertThat(f).contains(name, "empty entry"));
        });
    assertThat(resolve(required()).ruleFailures()).as("empty lists").isEmpty();
  }

  @Test
  void aDefaultDestinationGiven_winsOverTheCreatedTopic() {
    assertThat(
            resolve(required("DefaultDestination", ORDERS, "PublishTopicArns", ORDERS))
                .environment("PollerFunction"))
        .containsEntry("OUTBOX_DEFAULT_DESTINATION", ORDERS);
  }

  @Test
  void poller_isNeverRetriedByLambda_andAStaleScheduledEventIsDropped() {
    SamTemplate.Resolved stack = resolve(required());
    Map<String, Object> poller = SamTemplate.map(stack.properties("PollerFunction"));
    assertThat(SamTemplate.map(poller.get("EventInvokeConfig")))
        .containsEntry("MaximumRetryAttempts", 0)
        .containsEntry("MaximumEventAgeInSeconds", 60);
    assertThat(poller).doesNotContainKey("ReservedConcurrentExecutions");
    assertThat(
            SamTemplate.map(
                SamTemplate.map(stack.properties("DlqReprocessorFunction"))
                    .get("EventInvokeConfig")))
        .containsEntry("MaximumRetryAttempts", 0);

    assertThat(
            resolve(required("PollerReservedConcurrency", "2"))
                .properties("PollerFunction")
                .get("ReservedConcurrentExecutions"))
        .isEqualTo("2");
  }

  @Test
  void scaleOut_letsThePollerInvokeItself_andNothingElse_onlyWhenMoreThanOnePollerIsAllowed() {
    SamTemplate.Resolved defaults = resolve(required());
    assertThat(defaults.resources()).doesNotContainKey("PollerSelfInvokePolicy");
    assertThat(defaults.environment("PollerFunction"))
        .containsEntry("OUTBOX_MAX_CONCURRENT_POLLERS", "1");
    assertThat(statements(defaults))
        .noneMatch(s -> strings(s.get("Action")).stream().anyMatch(a -> a.startsWith("lambda:")));

    SamTemplate.Resolved scaling =
        resolve(required("MaxConcurrentPollers", "4", "PollerReservedConcurrency", "4"));
    assertThat(scaling.environment("PollerFunction"))
        .containsEntry("OUTBOX_MAX_CONCURRENT_POLLERS", "4");
    Map<String, Object> policy = scaling.properties("PollerSelfInvokePolicy");
    assertThat(strings(policy.get("Roles"))).containsExactly("arn-of-PollerFunctionRole");
    assertThat(actions(scaling, "PollerFunction").get("lambda:InvokeFunction"))
        .containsExactlyInAnyOrder(
            "getatt-of-PollerFunction.Arn", "getatt-of-PollerFunction.Arn:live");
    assertThat(actions(scaling, "DlqReprocessorFunction"))
        .doesNotContainKey("lambda:InvokeFunction");
    List<Map<String, Object>> lambdaStatements =
        statements(scaling).stream()
            .filter(s -> strings(s.get("Action")).stream().anyMatch(a -> a.startsWith("lambda:")))
            .toList();
    assertThat(lambdaStatements) // every one the stack has (the policy also counts as the role's)
        .isNotEmpty()
        .allSatisfy(
            s -> {
              assertThat(s.get("Effect")).isEqualTo("Allow");
              assertThat(strings(s.get("Action"))).containsExactly("lambda:InvokeFunction");
              // The function itself, unqualified and as the schedule's alias invokes it.
              assertThat(strings(s.get("Resource")))
                  .containsExactlyInAnyOrder(
                      "getatt-of-PollerFunction.Arn", "getatt-of-PollerFunction.Arn:live");
            });
    assertThat(SamTemplate.map(scaling.properties("PollerFunction")).get("AutoPublishAlias"))
        .isEqualTo("live");
  }

  /**
   * Each function may write its own log group and no other: no AWS-managed policy that allows the
   * logs actions on every log group ({@code AWSLambdaBasicExecutionRole}, {@code
   * AWSLambdaVPCAccessExecutionRole}; with {@code jdbc} {@code AWSLambdaENIManagementAccess}, the
   * network interfaces alone), and one logs statement, on the log group its {@code LoggingConfig}
   * names.
   */
  @ParameterizedTest
  @EnumSource(StoreMode.class)
  void eachFunction_writesOnlyItsOwnLogGroup(StoreMode mode) {
    SamTemplate.Resolved stack = resolve(SamTemplate.requiredParameters(mode));
    List<String> functions =
        new ArrayList<>(stack.resourcesOfType("AWS::Lambda::Function").keySet());
    functions.addAll(stack.resourcesOfType("AWS::Serverless::Function").keySet());
    assertThat(functions)
        .containsExactlyInAnyOrder(
            "PollerFunction", "DlqReprocessorFunction", "ConfigurationDigestFunction");
    for (String function : functions) {
      String logGroup =
          String.valueOf(
              SamTemplate.map(stack.properties(function).get("LoggingConfig")).get("LogGroup"));
      assertThat(awsManagedPolicies(stack, function))
          .as(function)
          .containsExactlyElementsOf(
              mode == StoreMode.JDBC && !function.equals("ConfigurationDigestFunction")
                  ? List.of(VPC_NETWORKING)
                  : List.of());
      List<Map<String, Object>> logs =
          StackPolicies.functionStatements(stack, function).stream()
              .filter(s -> strings(s.get("Action")).stream().anyMatch(a -> a.startsWith("logs:")))
              .toList();
      assertThat(logs).as("%s: its logs statements", function).hasSize(1);
      assertThat(logs.get(0).get("Effect")).isEqualTo("Allow");
      assertThat(strings(logs.get(0).get("Action")))
          .as(function)
          .containsExactlyInAnyOrder("logs:CreateLogStream", "logs:PutLogEvents");
      assertThat(strings(logs.get(0).get("Resource")))
          .as(function)
          .containsExactly("getatt-of-" + logGroup.substring("arn-of-".length()) + ".Arn");
    }
  }

  // ---- reading the policies

  private static List<Map<String, Object>> statements(SamTemplate.Resolved stack) {
    return StackPolicies.statements(stack);
  }

  private static List<String> awsManagedPolicies(SamTemplate.Resolved stack, String function) {
    return StackPolicies.awsManagedPolicies(stack, function);
  }

  /**
   * Action to the resources it is allowed on, for one function; its own log group's actions, and
   * the record of its failed asynchronous invocations, left out ({@link
   * #eachFunction_writesOnlyItsOwnLogGroup} and {@code TemplateAsyncFailuresTest} check them).
   */
  static Map<String, List<String>> actions(SamTemplate.Resolved stack, String function) {
    Map<String, List<String>> actions = new LinkedHashMap<>();
    for (Map<String, Object> statement : StackPolicies.functionStatements(stack, function)) {
      assertThat(statement.get("Effect")).isEqualTo("Allow");
      for (String action : strings(statement.get("Action"))) {
        if (action.startsWith("logs:")
            || strings(statement.get("Resource")).equals(List.of(ASYNC_FAILURE_QUEUE))) {
          continue;
        }
        actions
            .computeIfAbsent(action, a -> new ArrayList<>())
            .addAll(strings(statement.get("Resource")));
      }
    }
    return actions;
  }

  private static List<String> strings(Object value) {
    return IamEvaluator.strings(value);
  }
}
