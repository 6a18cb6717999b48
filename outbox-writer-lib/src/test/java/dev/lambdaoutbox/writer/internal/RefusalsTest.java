package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What a refused wake-up's warning advises, from Lambda's own answer: right whether or not the
 * stack names a role yet, and for a role of the poller's account or another.
 */
class RefusalsTest {
  private static final String ALIAS =
      "arn:aws:lambda:eu-west-1:123456789012:function:outbox-PollerFunction-AbC:live";

  private static String denied(String caller) {
    return "User: "
        + caller
        + " is not authorized to perform: lambda:InvokeFunction on resource: "
        + ALIAS
        + " because no resource-based policy allows the lambda:InvokeFunction action";
  }

  @Test
  void accessDenied_namesTheCallersRoleAsTheOneTheStackMustName() {
    String advice =
        Refusals.describe(
            ALIAS,
            403,
            "AccessDeniedException",
            denied("arn:aws:sts::123456789012:assumed-role/orders-app/i-0abc"));
    assertThat(advice)
        .startsWith("Lambda refused to invoke " + ALIAS + " (403 AccessDeniedException): ")
        .contains("calls as the role orders-app of account 123456789012")
        .contains("WakeUpInvokerRoleArn arn:aws:iam::123456789012:role/orders-app")
        .contains("if the stack names it already, a Deny in the role's policies")
        .doesNotContain("WakeUpInvokerPolicy");
  }

  @Test
  void accessDenied_toARoleOfAnotherAccount_alsoNamesThePolicyToAttach() {
    String advice =
        Refusals.describe(
            ALIAS,
            403,
            "AccessDeniedException",
            denied("arn:aws:sts::210987654321:assumed-role/orders-app/task"));
    assertThat(advice)
        .contains("WakeUpInvokerRoleArn arn:aws:iam::210987654321:role/orders-app")
        .contains("attach the stack's WakeUpInvokerPolicy output to that role")
        .contains("another account than the poller's, 123456789012");
  }

  @Test
  void accessDenied_withoutACaller_advisesBothWithoutGuessing() {
    assertThat(Refusals.describe("outbox-poller:live", 403, "AccessDeniedException", null))
        .contains("WakeUpInvokerRoleArn must name their IAM role")
        .contains("WakeUpInvokerPolicy");
    assertThat(
            Refusals.describe(
                "outbox-poller:live",
                403,
                "AccessDeniedException",
                denied("arn:aws:iam::123456789012:user/alice")))
        .contains("called as arn:aws:iam::123456789012:user/alice, not as an IAM role");
  }

  @Test
  void notFoundAndThrottled_sayWhatEachMeans() {
    assertThat(Refusals.describe(ALIAS, 404, "ResourceNotFoundException", "Function not found"))
        .contains("no such function or alias")
        .contains("WakeUpFunctionArn");
    assertThat(Refusals.describe(ALIAS, 429, "TooManyRequestsException", "Rate Exceeded."))
        .contains("throttled");
  }
}
