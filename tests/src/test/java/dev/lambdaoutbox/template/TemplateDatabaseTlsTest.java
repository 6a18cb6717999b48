package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.reprocessor.ReprocessorConfig;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.config.DatabaseTls;
import dev.lambdaoutbox.template.SamTemplate.StoreMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The stack's database TLS: verified by default, verification off only by the named parameter, the
 * CA file and its layer given to both functions, and each choice one the functions accept.
 */
class TemplateDatabaseTlsTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final Map<String, String> TOPIC =
      Map.of("OutboxTopic", "arn:aws:sns:us-east-1:123456789012:outbox");
  private static final String LAYER = "arn:aws:lambda:eu-west-1:123456789012:layer:rds-ca:3";

  @Test
  void byDefault_bothFunctionsVerifyTheCertificate_withNoLayer() {
    SamTemplate.Resolved stack =
        TEMPLATE.resolve(SamTemplate.requiredParameters(), "outbox", TOPIC);
    for (String function : List.of("PollerFunction", "DlqReprocessorFunction")) {
      assertThat(stack.environment(function))
          .containsEntry("OUTBOX_DB_TLS", "verify-full")
          .doesNotContainKey("OUTBOX_DB_TLS_CA_FILE");
      assertThat(stack.properties(function).get("Layers")).isEqualTo(List.of());
      assertThat(
              ((DatabaseSettings)
                      PollerConfig.fromEnvironment(stack.environment(function)).database())
                  .tls())
          .isEqualTo(DatabaseTls.defaults());
    }
  }

  @Test
  void theCaFileAndItsLayer_reachBothFunctions() throws Exception {
    Path pem = Path.of(TemplateDatabaseTlsTest.class.getResource("/tls/test-ca.pem").toURI());
    SamTemplate.Resolved stack =
        TEMPLATE.resolve(
            SamTemplate.requiredParameters(
                "DatabaseTlsCaFile", pem.toString(), "DatabaseTlsCaLayerArn", LAYER),
            "outbox",
            TOPIC);
    for (String function : List.of("PollerFunction", "DlqReprocessorFunction")) {
      assertThat(stack.environment(function))
          .containsEntry("OUTBOX_DB_TLS_CA_FILE", pem.toString());
      assertThat(stack.properties(function).get("Layers")).isEqualTo(List.of(LAYER));
    }
    assertThat(
            ((DatabaseSettings)
                    ReprocessorConfig.fromEnvironment(stack.environment("DlqReprocessorFunction"))
                        .database())
                .tls()
                .caFile())
        .isEqualTo(Optional.of(pem));
    assertThat(
            java.util.regex.Pattern.compile(
                    String.valueOf(
                        TEMPLATE.parameter("DatabaseTlsCaLayerArn").get("AllowedPattern")))
                .matcher(LAYER)
                .matches())
        .isTrue();
  }

  @Test
  void everyAllowedValue_isAModeTheFunctionsAccept_andNoOtherIs() {
    List<String> allowed =
        ((List<?>) TEMPLATE.parameter("DatabaseTls").get("AllowedValues"))
            .stream().map(String::valueOf).toList();
    assertThat(allowed)
        .containsExactlyElementsOf(
            java.util.Arrays.stream(DatabaseTls.Mode.values())
                .map(DatabaseTls.Mode::text)
                .toList());
    for (String mode : allowed) {
      SamTemplate.Resolved stack =
          TEMPLATE.resolve(SamTemplate.requiredParameters("DatabaseTls", mode), "outbox", TOPIC);
      assertThat(stack.environment("PollerFunction")).containsEntry("OUTBOX_DB_TLS", mode);
      PollerConfig.fromEnvironment(stack.environment("PollerFunction"));
    }
    Map<String, String> env =
        TEMPLATE
            .resolve(SamTemplate.requiredParameters(), "outbox", TOPIC)
            .environment("PollerFunction");
    env.put("OUTBOX_DB_TLS", "prefer");
    assertThat(catchThrowable(() -> PollerConfig.fromEnvironment(env)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_DB_TLS: 'prefer'");
  }

  @Test
  void overTheDataApi_noTlsSettingIsGiven() {
    SamTemplate.Resolved stack =
        TEMPLATE.resolve(
            SamTemplate.requiredParameters(StoreMode.DATA_API, "DatabaseTlsCaFile", "/opt/x.pem"),
            "outbox",
            TOPIC);
    assertThat(stack.environment("PollerFunction"))
        .doesNotContainKeys("OUTBOX_DB_TLS", "OUTBOX_DB_TLS_CA_FILE");
  }
}
