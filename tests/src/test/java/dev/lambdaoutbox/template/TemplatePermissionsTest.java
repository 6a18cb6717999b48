package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.reprocessor.ReplayDestinations;
import dev.lambdaoutbox.template.SamTemplate.StoreMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
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
  private static final String LOGS =
      "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole";
  private static final String VPC_NETWORKING =
      "arn:aws:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole";
  private static final String DATABASE_ACCESS = "arn-of-DatabaseAccessPolicy";
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
      assertThat(awsManagedPolicies(jdbc, function))
          .as(function)
          .containsExactlyInAnyOrder(LOGS, VPC_NETWORKING);

      assertThat(dataApi.properties(function)).as(function).doesNotContainKey("VpcConfig");
      assertThat(awsManagedPolicies(dataApi, function)).as(function).containsExactly(LOGS);
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

  // ---- reading the policies

  /** Every policy statement of the stack: the IAM resources' and any function's own. */
  private static List<Map<String, Object>> statements(SamTemplate.Resolved stack) {
    List<Map<String, Object>> statements = new ArrayList<>();
    stack
        .resourcesOfType("AWS::Serverless::Function")
        .keySet()
        .forEach(function -> statements.addAll(functionStatements(stack, function)));
    for (String type : List.of("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")) {
      stack
          .resourcesOfType(type)
          .values()
          .forEach(
              r -> statements.addAll(documentStatements(SamTemplate.map(r.get("Properties")))));
    }
    stack
        .resourcesOfType("AWS::IAM::Role")
        .values()
        .forEach(r -> statements.addAll(inlineStatements(SamTemplate.map(r.get("Properties")))));
    return statements;
  }

  /**
   * A function's statements: those of its role's inline policies and of the stack's managed
   * policies the role holds. A function's own {@code Policies}, a role that is not the stack's, or
   * a managed policy that is neither the stack's nor one of the AWS-managed ones this test knows
   * fails the test, so that no new permission goes unchecked.
   */
  private static List<Map<String, Object>> functionStatements(
      SamTemplate.Resolved stack, String function) {
    Map<String, Object> role = role(stack, function);
    List<Map<String, Object>> statements = new ArrayList<>(inlineStatements(role));
    String roleRef = "arn-of-" + roleId(stack, function);
    for (Map<String, Object> policy : stack.resourcesOfType("AWS::IAM::Policy").values()) {
      Map<String, Object> properties = SamTemplate.map(policy.get("Properties"));
      if (strings(properties.get("Roles")).contains(roleRef)) {
        statements.addAll(documentStatements(properties));
      }
    }
    for (String arn : strings(role.get("ManagedPolicyArns"))) {
      if (arn.startsWith("arn-of-")) {
        String id = arn.substring("arn-of-".length());
        Map<String, Object> policy = stack.resources().get(id);
        assertThat(policy).as("%s's managed policy %s", function, id).isNotNull();
        assertThat(policy.get("Type")).isEqualTo("AWS::IAM::ManagedPolicy");
        statements.addAll(documentStatements(SamTemplate.map(policy.get("Properties"))));
      } else if (!arn.equals(LOGS) && !arn.equals(VPC_NETWORKING)) {
        throw new AssertionError(
            function + " holds a managed policy this test cannot read, so cannot check: " + arn);
      }
    }
    return statements;
  }

  /** The AWS-managed policies a function's role holds. */
  private static List<String> awsManagedPolicies(SamTemplate.Resolved stack, String function) {
    return strings(role(stack, function).get("ManagedPolicyArns")).stream()
        .filter(arn -> !arn.startsWith("arn-of-"))
        .toList();
  }

  /** The logical id of the function's role. */
  private static String roleId(SamTemplate.Resolved stack, String function) {
    String role = String.valueOf(stack.properties(function).get("Role"));
    return role.substring("getatt-of-".length(), role.length() - ".Arn".length());
  }

  /** The properties of the function's role: one of the stack's, which only Lambda may assume. */
  private static Map<String, Object> role(SamTemplate.Resolved stack, String function) {
    Map<String, Object> properties = stack.properties(function);
    assertThat(properties)
        .as("%s: its permissions are its role's, not SAM policies", function)
        .doesNotContainKey("Policies");
    String role = String.valueOf(properties.get("Role"));
    assertThat(role).as("%s's role", function).startsWith("getatt-of-").endsWith(".Arn");
    String id = role.substring("getatt-of-".length(), role.length() - ".Arn".length());
    Map<String, Object> resource = stack.resources().get(id);
    assertThat(resource).as("%s's role %s", function, id).isNotNull();
    assertThat(resource.get("Type")).isEqualTo("AWS::IAM::Role");
    Map<String, Object> roleProperties = SamTemplate.map(resource.get("Properties"));
    assertThat(
            statementList(
                SamTemplate.map(roleProperties.get("AssumeRolePolicyDocument")).get("Statement")))
        .as("who may assume %s", id)
        .containsExactly(
            Map.of(
                "Effect", "Allow",
                "Principal", Map.of("Service", "lambda.amazonaws.com"),
                "Action", "sts:AssumeRole"));
    return roleProperties;
  }

  /** The statements of a role's inline {@code Policies}. */
  private static List<Map<String, Object>> inlineStatements(Map<String, Object> roleProperties) {
    List<Map<String, Object>> statements = new ArrayList<>();
    Object policies = roleProperties.get("Policies");
    for (Object p : policies == null ? List.of() : (List<?>) policies) {
      statements.addAll(documentStatements(SamTemplate.map(p)));
    }
    return statements;
  }

  /** The statements of a policy's {@code PolicyDocument}. */
  private static List<Map<String, Object>> documentStatements(Map<String, Object> policy) {
    return statementList(SamTemplate.map(policy.get("PolicyDocument")).get("Statement"));
  }

  private static List<Map<String, Object>> statementList(Object statement) {
    List<Map<String, Object>> list = new ArrayList<>();
    if (statement instanceof List<?> items) {
      items.forEach(s -> list.add(SamTemplate.map(s)));
    } else if (statement != null) {
      list.add(SamTemplate.map(statement));
    }
    return list;
  }

  /** Action to the resources it is allowed on, for one function. */
  static Map<String, List<String>> actions(SamTemplate.Resolved stack, String function) {
    Map<String, List<String>> actions = new LinkedHashMap<>();
    for (Map<String, Object> statement : functionStatements(stack, function)) {
      assertThat(statement.get("Effect")).isEqualTo("Allow");
      for (String action : strings(statement.get("Action"))) {
        actions
            .computeIfAbsent(action, a -> new ArrayList<>())
            .addAll(strings(statement.get("Resource")));
      }
    }
    return actions;
  }

  private static List<String> strings(Object value) {
    if (value instanceof List<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    return value == null ? List.of() : List.of(String.valueOf(value));
  }
}
