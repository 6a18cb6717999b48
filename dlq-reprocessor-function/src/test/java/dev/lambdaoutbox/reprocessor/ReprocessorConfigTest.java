package dev.lambdaoutbox.reprocessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReprocessorConfigTest {
  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", "jdbc:postgresql://db.internal:5432/app");
    env.put("OUTBOX_DB_USER", "outbox");
    env.put("OUTBOX_DB_PASSWORD", "secret");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void defaults_needOnlyTheDatabase() {
    ReprocessorConfig config = ReprocessorConfig.fromEnvironment(env());

    assertThat(config.database().dialect()).isEqualTo(SqlDialect.POSTGRESQL);
    assertThat(config.database().tables().prefix()).isEmpty();
    assertThat(config.metricsNamespace()).isEqualTo("LambdaOutbox");
    assertThat(config.serviceName()).isEqualTo("outbox-dlq-reprocessor");
    assertThat(config.logLevel()).isEqualTo(JsonLogger.Level.INFO);
    assertThat(config.batchSize()).isEqualTo(100);
  }

  @Test
  void everySettingIsRead() {
    ReprocessorConfig config =
        ReprocessorConfig.fromEnvironment(
            env(
                "OUTBOX_TABLE_PREFIX", "billing_",
                "OUTBOX_METRICS_NAMESPACE", "Billing/Outbox",
                "OUTBOX_SERVICE_NAME", "billing-dlq",
                "OUTBOX_LOG_LEVEL", "debug",
                "OUTBOX_REPLAY_BATCH_SIZE", "25"));

    assertThat(config.database().tables().deadLetters()).isEqualTo("billing_outbox_dead_letters");
    assertThat(config.metricsNamespace()).isEqualTo("Billing/Outbox");
    assertThat(config.serviceName()).isEqualTo("billing-dlq");
    assertThat(config.logLevel()).isEqualTo(JsonLogger.Level.DEBUG);
    assertThat(config.batchSize()).isEqualTo(25);
  }

  @Test
  void badLogLevel_namesTheVariableAndValue() {
    assertThatThrownBy(() -> ReprocessorConfig.fromEnvironment(env("OUTBOX_LOG_LEVEL", "LOUD")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("OUTBOX_LOG_LEVEL")
        .hasMessageContaining("LOUD");
  }

  @Test
  void batchSizeOutOfRange_namesTheVariable() {
    assertThatThrownBy(
            () -> ReprocessorConfig.fromEnvironment(env("OUTBOX_REPLAY_BATCH_SIZE", "5000")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("OUTBOX_REPLAY_BATCH_SIZE");
  }

  @Test
  void missingDatabase_namesTheVariable() {
    Map<String, String> env = env();
    env.remove("OUTBOX_JDBC_URL");

    assertThatThrownBy(() -> ReprocessorConfig.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_JDBC_URL");
  }

  @Test
  void aMetricsNamespaceCloudWatchRefuses_isRefusedNamingTheVariable() {
    for (String namespace : new String[] {"AWS/Lambda", "AWS/", "Outbox\tmetrics", "/Outbox"}) {
      assertThatThrownBy(
              () -> ReprocessorConfig.fromEnvironment(env("OUTBOX_METRICS_NAMESPACE", namespace)))
          .as(namespace)
          .isInstanceOf(ConfigurationException.class)
          .hasMessageStartingWith("OUTBOX_METRICS_NAMESPACE: '" + namespace + "'");
    }
    assertThat(
            ReprocessorConfig.fromEnvironment(env("OUTBOX_METRICS_NAMESPACE", "Shop/Outbox AWS"))
                .metricsNamespace())
        .isEqualTo("Shop/Outbox AWS");
  }
}
