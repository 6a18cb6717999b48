package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

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
 * CloudFormation would resolve it for a few parameter sets: least privilege by default, exactly the
 * destinations in use, and a stack that never dead-letters everything on its defaults.
 */
class TemplatePermissionsTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final String STACK = "outbox";
  private static final String KEY = "arn:aws:kms:us-east-1:123456789012:key/1111-2222";
  private static final String ORDERS = "arn:aws:sns:us-east-1:123456789012:orders";
  private static final String PAYMENTS = "arn:aws:sns:us-east-1:123456789012:payments";
  private static final String AUDIT_QUEUE = "arn:aws:sqs:us-east-1:123456789012:audit";

  private static Map<String, String> required(String... more) {
    return SamTemplate.requiredParameters(more);
  }

  private static SamTemplate.Resolved resolve(Map<String, String> parameters) {
    return TEMPLATE.resolve(parameters, STACK, Map.of());
  }

  static Stream<Arguments> parameterSets() {
    return Stream.of(
        Arguments.of("defaults", required()),
        Arguments.of("scale-out", required("MaxConcurrentPollers", "4")),
        Arguments.of(
            "FIFO topic with a customer key",
            required("OutboxTopicType", "fifo", "OutboxTopicKmsKey", KEY)),
        Arguments.of(
            "existing destinations",
            required(
                "OutboxTopicType", "none",
                "DefaultDestination", ORDERS,
                "PublishTopicArns", ORDERS + "," + PAYMENTS,
                "PublishQueueArns", AUDIT_QUEUE,
                "PublishKmsKeyArns", KEY)));
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
  void reprocessor_mayReadTheSecretAndNothingElse() {
    assertThat(actions(resolve(required()), "DlqReprocessorFunction"))
        .containsExactlyEntriesOf(
            Map.of("secretsmanager:GetSecretValue", List.of(required().get("DbSecretArn"))));
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
        .anySatisfy(f -> assertThat(f).contains("PublishTopicArns", "PublishQueueArns"));
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

    SamTemplate.Resolved scaling = resolve(required("MaxConcurrentPollers", "4"));
    assertThat(scaling.environment("PollerFunction"))
        .containsEntry("OUTBOX_MAX_CONCURRENT_POLLERS", "4");
    Map<String, Object> policy = scaling.properties("PollerSelfInvokePolicy");
    assertThat(strings(policy.get("Roles"))).containsExactly("name-of-PollerFunctionRole");
    List<Map<String, Object>> lambdaStatements =
        statements(scaling).stream()
            .filter(s -> strings(s.get("Action")).stream().anyMatch(a -> a.startsWith("lambda:")))
            .toList();
    assertThat(lambdaStatements)
        .singleElement()
        .satisfies(
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

  /** Every policy statement of the stack: the functions' inline ones and IAM resources'. */
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
              r ->
                  statements.addAll(
                      statementList(
                          SamTemplate.map(
                                  SamTemplate.map(r.get("Properties")).get("PolicyDocument"))
                              .get("Statement"))));
    }
    stack
        .resourcesOfType("AWS::IAM::Role")
        .values()
        .forEach(
            r -> {
              Object policies = SamTemplate.map(r.get("Properties")).get("Policies");
              for (Object p : policies == null ? List.of() : (List<?>) policies) {
                statements.addAll(
                    statementList(
                        SamTemplate.map(SamTemplate.map(p).get("PolicyDocument"))
                            .get("Statement")));
              }
            });
    return statements;
  }

  /**
   * A function's statements: inline {@code Statement} lists, and the SAM policy templates this test
   * knows. Anything else (a managed policy, another template) fails the test, so that no new
   * permission goes unchecked.
   */
  private static List<Map<String, Object>> functionStatements(
      SamTemplate.Resolved stack, String function) {
    List<Map<String, Object>> statements = new ArrayList<>();
    Object policies = stack.properties(function).get("Policies");
    for (Object policy : policies == null ? List.of() : (List<?>) policies) {
      Map<String, Object> p = SamTemplate.map(policy);
      if (p.containsKey("Statement")) {
        statements.addAll(statementList(p.get("Statement")));
      } else if (p.containsKey("AWSSecretsManagerGetSecretValuePolicy")) {
        Map<String, Object> template =
            SamTemplate.map(p.get("AWSSecretsManagerGetSecretValuePolicy"));
        statements.add(
            Map.of(
                "Effect", "Allow",
                "Action", "secretsmanager:GetSecretValue",
                "Resource", template.get("SecretArn")));
      } else {
        throw new AssertionError(
            function + " has a policy this test cannot read, so cannot check: " + policy);
      }
    }
    return statements;
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
  private static Map<String, List<String>> actions(SamTemplate.Resolved stack, String function) {
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
