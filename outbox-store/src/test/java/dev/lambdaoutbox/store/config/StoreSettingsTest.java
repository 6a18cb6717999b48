package dev.lambdaoutbox.store.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.SqlDialect;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoreSettingsTest {
  private static final String CLUSTER = "arn:aws:rds:eu-west-1:123456789012:cluster:orders-db";
  private static final String SECRET =
      "arn:aws:secretsmanager:eu-west-1:123456789012:secret:orders-db-AbCdEf";

  private static Map<String, String> dataApi() {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_STORE", "data-api");
    env.put("OUTBOX_DATA_API_RESOURCE_ARN", CLUSTER);
    env.put("OUTBOX_DATA_API_SECRET_ARN", SECRET);
    env.put("OUTBOX_DATABASE", "orders");
    return env;
  }

  private static StoreSettings read(Map<String, String> env) {
    return StoreSettings.fromEnvironment(new EnvironmentReader(env));
  }

  @Test
  void dataApi_readsTheCluster_theSecret_theDatabase_andDefaults() {
    DataApiSettings s = (DataApiSettings) read(dataApi());

    assertThat(s.resourceArn()).isEqualTo(CLUSTER);
    assertThat(s.secretArn()).isEqualTo(SECRET);
    assertThat(s.database()).isEqualTo("orders");
    assertThat(s.dialect()).isEqualTo(SqlDialect.POSTGRESQL);
    assertThat(s.region()).isEqualTo("eu-west-1");
    assertThat(s.retryTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.tables().messages()).isEqualTo("outbox_messages");
  }

  @Test
  void dataApi_readsTheEngine_theRetryTimeout_andThePrefix() {
    Map<String, String> env = dataApi();
    env.put("OUTBOX_DATA_API_ENGINE", "mysql");
    env.put("OUTBOX_DATA_API_RETRY_TIMEOUT_MS", "5000");
    env.put("OUTBOX_TABLE_PREFIX", "billing_");

    DataApiSettings s = (DataApiSettings) read(env);

    assertThat(s.dialect()).isEqualTo(SqlDialect.MYSQL);
    assertThat(s.retryTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.tables().messages()).isEqualTo("billing_outbox_messages");
  }

  @Test
  void dataApi_eachMissingVariable_failsNamingIt() {
    for (String variable :
        new String[] {
          "OUTBOX_DATA_API_RESOURCE_ARN", "OUTBOX_DATA_API_SECRET_ARN", "OUTBOX_DATABASE"
        }) {
      Map<String, String> env = dataApi();
      env.remove(variable);

      assertThatThrownBy(() -> read(env))
          .as(variable)
          .isInstanceOfSatisfying(
              ConfigurationException.class, e -> assertThat(e.variable()).isEqualTo(variable))
          .hasMessageStartingWith(variable + ": is not set");
    }
  }

  @Test
  void dataApi_badValues_failNamingTheVariableAndTheValue() {
    assertRejected("OUTBOX_DATA_API_RESOURCE_ARN", "arn:aws:rds:eu-west-1:1:db:orders", "cluster");
    assertRejected("OUTBOX_DATA_API_SECRET_ARN", "orders-db-secret", "Secrets Manager");
    assertRejected("OUTBOX_DATA_API_ENGINE", "oracle", "'postgresql' or 'mysql'");
    assertRejected("OUTBOX_DATA_API_RETRY_TIMEOUT_MS", "-1", "out of range");
  }

  @Test
  void anUnknownStore_isRefused_namingBoth() {
    Map<String, String> env = dataApi();
    env.put("OUTBOX_STORE", "dynamodb");

    assertThatThrownBy(() -> read(env))
        .hasMessageStartingWith("OUTBOX_STORE: 'dynamodb' is not a known store")
        .hasMessageContaining("'jdbc' or 'data-api'");
  }

  @Test
  void jdbc_isTheDefault() {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", "jdbc:mysql://db:3306/app");
    env.put("OUTBOX_DB_USER", "u");
    env.put("OUTBOX_DB_PASSWORD", "p");

    assertThat(read(env))
        .isInstanceOfSatisfying(
            DatabaseSettings.class, s -> assertThat(s.dialect()).isEqualTo(SqlDialect.MYSQL));
  }

  private static void assertRejected(String variable, String value, String why) {
    Map<String, String> env = dataApi();
    env.put(variable, value);
    assertThatThrownBy(() -> read(env))
        .as("%s=%s", variable, value)
        .isInstanceOfSatisfying(
            ConfigurationException.class, e -> assertThat(e.variable()).isEqualTo(variable))
        .hasMessageStartingWith(variable + ":")
        .hasMessageContaining(value)
        .hasMessageContaining(why);
  }
}
