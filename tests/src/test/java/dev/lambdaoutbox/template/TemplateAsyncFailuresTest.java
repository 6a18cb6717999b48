package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.template.IamEvaluator.Decision;
import dev.lambdaoutbox.template.IamEvaluator.Request;
import dev.lambdaoutbox.template.SamTemplate.StoreMode;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where the record of a failed or dropped asynchronous invocation goes: every asynchronous
 * invocation of either function (the poller's scheduled runs, wake-ups and fan-out, all of the
 * alias {@code live}; an operator's of the reprocessor) has an on-failure destination, the stack's
 * encrypted queue, and the function's role may send there, as Lambda delivers the record with it
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html: the
 * destination's permission must be in the function's execution role). No code of the project makes
 * that call, so the IAM check of recorded calls cannot see it; this test checks it on template.yaml
 * as AWS's SAM translator renders it, in both store modes, with wake-ups and fan-out.
 */
class TemplateAsyncFailuresTest {
  private static final String QUEUE_ARN =
      "arn:aws:sqs:us-east-1:123456789012:outbox-AsyncFailureQueue-1A2B3C4D5E6F";
  private static final Map<String, String> REFS = Map.of("AsyncFailureQueue.Arn", QUEUE_ARN);

  private static final Map<String, Map<String, String>> DEPLOYMENTS = deployments();
  private static final List<SamTemplate.Resolved> stacks = new ArrayList<>();

  private static Map<String, Map<String, String>> deployments() {
    Map<String, Map<String, String>> deployments = new LinkedHashMap<>();
    deployments.put("jdbc", SamTemplate.requiredParameters(StoreMode.JDBC));
    deployments.put("data-api", SamTemplate.requiredParameters(StoreMode.DATA_API));
    deployments.put(
        "wake-ups and fan-out",
        SamTemplate.requiredParameters(
            "WakeUpInvokerRoleArn",
            "arn:aws:iam::123456789012:role/orders",
            "MaxConcurrentPollers",
            "4",
            "ReprocessorReservedConcurrency",
            "2"));
    return deployments;
  }

  @BeforeAll
  static void translate() {
    List<Map<String, String>> sets = new ArrayList<>(DEPLOYMENTS.values());
    List<SamTemplate> translated =
        SamTranslator.translate(
                PackagedFunction.projectRoot().resolve("template.yaml"), "jar-1", sets)
            .templates();
    for (int i = 0; i < sets.size(); i++) {
      stacks.add(translated.get(i).resolve(sets.get(i), "outbox", REFS));
    }
  }

  @Test
  void everyAsynchronousInvocation_ofEitherFunction_sendsItsFailureToTheQueue_withoutRetrying() {
    for (SamTemplate.Resolved stack : stacks) {
      Map<String, String> configured = new LinkedHashMap<>();
      stack
          .resourcesOfType("AWS::Lambda::EventInvokeConfig")
          .forEach(
              (id, resource) -> {
                Map<String, Object> p = SamTemplate.map(resource.get("Properties"));
                assertThat(p.get("MaximumRetryAttempts")).as(id).isEqualTo(0);
                assertThat(
                        SamTemplate.map(
                            SamTemplate.map(p.get("DestinationConfig")).get("OnFailure")))
                    .as("%s: where a failed invocation's record goes", id)
                    .containsEntry("Destination", QUEUE_ARN);
                configured.put(
                    String.valueOf(p.get("FunctionName")).replace("arn-of-", ""),
                    String.valueOf(p.get("Qualifier")));
              });
      assertThat(configured)
          .as(
              "the poller's alias live, which the schedule, wake-ups and fan-out invoke; the"
                  + " reprocessor's only version")
          .containsOnly(
              Map.entry("PollerFunction", "live"), Map.entry("DlqReprocessorFunction", "$LATEST"));
      assertThat(SamTemplate.map(stack.properties("PollerFunction").get("DeadLetterConfig")))
          .as("no dead-letter queue besides: the destination has the record")
          .isEmpty();
    }
  }

  @Test
  void eachFunctionsRole_maySendTheRecord_toTheQueueAndNowhereElseOfIt() {
    for (SamTemplate.Resolved stack : stacks) {
      for (String function : List.of("PollerFunction", "DlqReprocessorFunction")) {
        List<Map<String, Object>> role = StackPolicies.roleStatements(stack, function);
        assertThat(IamEvaluator.decide(role, Request.of("sqs:SendMessage", QUEUE_ARN)))
            .as("%s's role sends the record of its failed invocation", function)
            .isEqualTo(Decision.ALLOWED);
        for (String action :
            List.of("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:PurgeQueue", "sqs:*")) {
          assertThat(IamEvaluator.decide(role, Request.of(action, QUEUE_ARN)))
              .as("%s may not %s the records", function, action)
              .isNotEqualTo(Decision.ALLOWED);
        }
      }
    }
  }

  @Test
  void theQueue_isStandard_encryptedWithSqsOwnKey_andKeepsARecordFourteenDays() {
    for (SamTemplate.Resolved stack : stacks) {
      Map<String, Object> queue = stack.properties("AsyncFailureQueue");
      assertThat(queue)
          .as("a FIFO queue cannot be a destination; SQS's key needs no permission of the roles")
          .doesNotContainKeys("FifoQueue", "KmsMasterKeyId")
          .containsEntry("SqsManagedSseEnabled", true)
          .containsEntry("MessageRetentionPeriod", 1209600);
      assertThat(stack.outputs()).containsKey("AsyncFailureQueueUrl");
    }
  }
}
