package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reprocessor cannot be starved of concurrency by the poller: it may reserve concurrency of its
 * own (off by default, as a new account can reserve none), and a stack whose pollers scale out
 * without a reservation on either side is refused, saying what to set.
 */
class TemplateConcurrencyTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();

  private static SamTemplate.Resolved stack(String... parameters) {
    return TEMPLATE.resolve(SamTemplate.requiredParameters(parameters), "outbox", Map.of());
  }

  @Test
  void byDefault_nothingIsReserved_soANewAccountDeploys() {
    Map<String, Object> parameter = TEMPLATE.parameter("ReprocessorReservedConcurrency");
    assertThat(parameter.get("Default")).isEqualTo(0);
    assertThat(parameter.get("MinValue")).isEqualTo(0);
    assertThat(parameter.get("MaxValue")).isEqualTo(100);

    SamTemplate.Resolved defaults = stack();
    assertThat(defaults.properties("DlqReprocessorFunction"))
        .doesNotContainKey("ReservedConcurrentExecutions");
    assertThat(defaults.properties("PollerFunction"))
        .doesNotContainKey("ReservedConcurrentExecutions");
    assertThat(defaults.ruleFailures()).isEmpty();
  }

  @Test
  void aReservationForTheReprocessor_isItsReservedConcurrency() {
    assertThat(
            stack("ReprocessorReservedConcurrency", "2")
                .properties("DlqReprocessorFunction")
                .get("ReservedConcurrentExecutions"))
        .isEqualTo("2");
  }

  @Test
  void pollersScalingOutWithNoReservationOnEitherSide_areRefused_namingBothSettings() {
    assertThat(stack("MaxConcurrentPollers", "50").ruleFailures())
        .singleElement()
        .asString()
        .contains(
            "MaxConcurrentPollers", "PollerReservedConcurrency", "ReprocessorReservedConcurrency");

    assertThat(
            stack("MaxConcurrentPollers", "50", "ReprocessorReservedConcurrency", "2")
                .ruleFailures())
        .isEmpty();
    assertThat(
            stack("MaxConcurrentPollers", "50", "PollerReservedConcurrency", "50").ruleFailures())
        .isEmpty();
    assertThat(stack("MaxConcurrentPollers", "1").ruleFailures()).isEmpty();
  }
}
