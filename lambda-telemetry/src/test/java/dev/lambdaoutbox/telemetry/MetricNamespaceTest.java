package dev.lambdaoutbox.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The namespaces CloudWatch takes, and the reserved AWS/ prefix it does not. */
class MetricNamespaceTest {
  @Test
  void namespacesOfOurOwn_areTaken() {
    for (String ok :
        new String[] {
          "LambdaOutbox", "Shop/Outbox", "a", "x".repeat(255), "AWS", "AWSX/1", "aws/x"
        }) {
      assertThat(MetricNamespace.problemWith(ok)).as(ok).isNull();
    }
  }

  @Test
  void theReservedPrefixAndWhatCloudWatchRefuses_areNot() {
    assertThat(MetricNamespace.problemWith("AWS/Lambda")).contains("AWS/", "reserves");
    for (String bad :
        new String[] {
          "", " Outbox", "/Outbox", ":Outbox", "x".repeat(256), "Out\u00e9box", "a\tb"
        }) {
      assertThat(MetricNamespace.problemWith(bad)).as(bad).isNotNull();
    }
  }
}
