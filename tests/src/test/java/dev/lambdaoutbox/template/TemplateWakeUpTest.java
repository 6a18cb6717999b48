package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.testing.PackagedFunction;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups in template.yaml: off by default; with {@code WakeUpInvokerRoleArn}, exactly that role
 * may invoke exactly the poller's alias {@code live} (the one the schedule runs, as SAM's own
 * translation shows), and the outputs name the ARN to wake and the statement a role in another
 * account attaches.
 */
class TemplateWakeUpTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final String ROLE = "arn:aws:iam::123456789012:role/orders-app";

  private static SamTemplate.Resolved resolve(String... more) {
    return TEMPLATE.resolve(SamTemplate.requiredParameters(more), "outbox", Map.of());
  }

  @Test
  void byDefault_nobodyMayWakeThePoller_andNoWakeUpOutputs() {
    SamTemplate.Resolved stack = resolve();
    assertThat(stack.resourcesOfType("AWS::Lambda::Permission")).isEmpty();
    assertThat(stack.outputs()).doesNotContainKeys("WakeUpFunctionArn", "WakeUpInvokerPolicy");
  }

  @Test
  void withAnInvokerRole_thatRoleAloneMayInvokeThePollersAlias_andNothingElse() {
    SamTemplate.Resolved stack = resolve("WakeUpInvokerRoleArn", ROLE);
    assertThat(stack.resourcesOfType("AWS::Lambda::Permission"))
        .containsOnlyKeys("PollerWakeUpPermission");
    Map<String, Object> permission = stack.properties("PollerWakeUpPermission");
    assertThat(permission)
        .containsOnlyKeys("Action", "FunctionName", "Principal")
        .containsEntry("Action", "lambda:InvokeFunction")
        .containsEntry("Principal", ROLE)
        .containsEntry("FunctionName", "arn-of-PollerFunctionAliaslive");

    assertThat(stack.outputs())
        .containsEntry("WakeUpFunctionArn", "arn-of-PollerFunctionAliaslive")
        .containsEntry(
            "WakeUpInvokerPolicy",
            "{\"Effect\":\"Allow\",\"Action\":\"lambda:InvokeFunction\","
                + "\"Resource\":\"arn-of-PollerFunctionAliaslive\"}");
  }

  @Test
  void withWakeUps_thePollersRunsAreBounded_byMaxConcurrentPollersUnlessAReservationIsSet() {
    assertThat(resolve().properties("PollerFunction"))
        .doesNotContainKey("ReservedConcurrentExecutions");
    assertThat(
            resolve("WakeUpInvokerRoleArn", ROLE)
                .properties("PollerFunction")
                .get("ReservedConcurrentExecutions"))
        .isEqualTo("1");
    SamTemplate.Resolved scaling =
        resolve("WakeUpInvokerRoleArn", ROLE, "MaxConcurrentPollers", "4");
    assertThat(scaling.properties("PollerFunction").get("ReservedConcurrentExecutions"))
        .isEqualTo("4");
    assertThat(scaling.ruleFailures())
        .as("the poller is capped: the reprocessor keeps its share")
        .isEmpty();
    assertThat(
            resolve("WakeUpInvokerRoleArn", ROLE, "PollerReservedConcurrency", "3")
                .properties("PollerFunction")
                .get("ReservedConcurrentExecutions"))
        .isEqualTo("3");
  }

  @Test
  void theRoleParameter_takesAnIamRoleArnOrNothing() {
    Pattern allowed =
        Pattern.compile(
            String.valueOf(
                ((Map<?, ?>) TEMPLATE.parameters().get("WakeUpInvokerRoleArn"))
                    .get("AllowedPattern")));
    assertThat(allowed.matcher("").matches()).isTrue();
    assertThat(allowed.matcher(ROLE).matches()).isTrue();
    assertThat(allowed.matcher("arn:aws:iam::123456789012:role/service-role/app").matches())
        .isTrue();
    assertThat(allowed.matcher("arn:aws:iam::123456789012:user/alice").matches()).isFalse();
    assertThat(allowed.matcher("123456789012").matches()).isFalse();
    assertThat(allowed.matcher("*").matches()).isFalse();
  }

  @Test
  void samsTranslation_grantsTheAliasTheScheduleInvokes() {
    SamTranslator.Translation translation =
        SamTranslator.translate(
            PackagedFunction.projectRoot().resolve("template.yaml"),
            "jar-1",
            List.of(SamTemplate.requiredParameters("WakeUpInvokerRoleArn", ROLE)));
    SamTemplate.Resolved translated =
        translation
            .templates()
            .getFirst()
            .resolve(
                SamTemplate.requiredParameters("WakeUpInvokerRoleArn", ROLE), "outbox", Map.of());

    assertThat(translated.resourcesOfType("AWS::Lambda::Alias"))
        .containsKey("PollerFunctionAliaslive");
    Map<String, Object> permission = translated.properties("PollerWakeUpPermission");
    assertThat(permission.get("FunctionName")).isEqualTo("arn-of-PollerFunctionAliaslive");
    Map<String, Object> schedule = translated.properties("PollerFunctionSchedule");
    assertThat(String.valueOf(schedule.get("Targets"))).contains("arn-of-PollerFunctionAliaslive");
  }
}
