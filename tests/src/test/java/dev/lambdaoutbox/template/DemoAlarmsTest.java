package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.demo.Alarms;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The demo shows the stack's alarms firing and clearing: its rules ({@link Alarms#RULES}) are the
 * alarms of template.yaml on its default parameters, one for one, so the demo cannot show an alarm
 * the stack does not have, or miss one it has.
 */
class DemoAlarmsTest {
  private static final Map<String, String> OPERATORS =
      Map.of(
          "GreaterThanThreshold", ">",
          "GreaterThanOrEqualToThreshold", ">=");
  private static final Map<String, Alarms.Missing> MISSING =
      Map.of(
          "breaching", Alarms.Missing.BREACHING,
          "notBreaching", Alarms.Missing.NOT_BREACHING,
          "ignore", Alarms.Missing.IGNORE,
          "missing", Alarms.Missing.NOT_BREACHING);

  private final SamTemplate.Resolved template =
      SamTemplate.load().resolve(SamTemplate.requiredParameters(), "demo", Map.of());

  @Test
  void theDemoKnowsEveryAlarmOfTheTemplate_andNoOther() {
    assertThat(Alarms.RULES.stream().map(Alarms.Rule::name).collect(Collectors.toSet()))
        .isEqualTo(template.resourcesOfType("AWS::CloudWatch::Alarm").keySet());
  }

  @Test
  void eachRule_isItsAlarmsMetricStatisticPeriodThresholdAndMissingData() {
    for (Alarms.Rule rule : Alarms.RULES) {
      Map<String, Object> p = template.properties(rule.name());
      String name = rule.name();
      assertThat(p.get("MetricName")).as(name).isEqualTo(rule.metric());
      assertThat(p.get("Statistic")).as(name).isEqualTo(rule.statistic());
      assertThat(number(p.get("Period"))).as(name).isEqualTo(rule.periodSeconds());
      assertThat(number(p.get("Threshold"))).as(name).isEqualTo(rule.threshold());
      assertThat(OPERATORS.get(String.valueOf(p.get("ComparisonOperator"))))
          .as(name)
          .isEqualTo(rule.orEqual() ? ">=" : ">");
      assertThat(number(p.get("EvaluationPeriods"))).as(name).isEqualTo(rule.periods());
      Object toAlarm = p.getOrDefault("DatapointsToAlarm", p.get("EvaluationPeriods"));
      assertThat(number(toAlarm)).as(name).isEqualTo(rule.toAlarm());
      assertThat(MISSING.get(String.valueOf(p.getOrDefault("TreatMissingData", "missing"))))
          .as(name)
          .isEqualTo(rule.missing());
    }
  }

  @Test
  void everyPeriod_isWholeMinutes_asTheDemoCountsOneRunAMinute() {
    for (Alarms.Rule rule : Alarms.RULES) {
      assertThat(rule.periodSeconds() % 60).as(rule.name()).isZero();
    }
  }

  private static double number(Object value) {
    return Double.parseDouble(String.valueOf(value));
  }
}
