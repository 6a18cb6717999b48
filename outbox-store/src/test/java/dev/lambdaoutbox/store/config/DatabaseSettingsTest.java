package dev.lambdaoutbox.store.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.SqlDialect;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DatabaseSettingsTest {
  private static DatabaseSettings read(String url) {
    return DatabaseSettings.fromEnvironment(
        new EnvironmentReader(
            Map.of(
                DatabaseSettings.JDBC_URL, url,
                DatabaseSettings.USER, "outbox",
                DatabaseSettings.PASSWORD, "secret")));
  }

  @Test
  void postgresqlAndMysqlUrls_pickTheirDialect() {
    assertThat(read("jdbc:postgresql://db:5432/app").dialect()).isEqualTo(SqlDialect.POSTGRESQL);
    assertThat(read("jdbc:mysql://db:3306/app").dialect()).isEqualTo(SqlDialect.MYSQL);
  }

  @Test
  void mariadbUrl_isRefusedAtStartUp_namingTheMysqlUrlThatWorks() {
    assertThatThrownBy(() -> read("jdbc:mariadb://db.internal:3306/app?useSsl=true"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "OUTBOX_JDBC_URL: 'jdbc:mariadb://db.internal:3306/app?useSsl=true'")
        .hasMessageContaining("jdbc:mysql://db.internal:3306/app?useSsl=true")
        .extracting(e -> ((ConfigurationException) e).variable())
        .isEqualTo(DatabaseSettings.JDBC_URL);
  }

  /**
   * A MySQL URL whose legacy TLS flag turns off what OUTBOX_DB_TLS asks (verify-full by default)
   * stops the start-up, naming the flag, instead of connecting with less; the password stays
   * hidden.
   */
  @Test
  void aMysqlLegacyTlsFlagWeakerThanTheConfiguredMode_isRefusedAtStartUp_namingTheFlag() {
    assertThatThrownBy(
            () ->
                read(
                    "jdbc:mysql://app:Zk3Pq9Vw@db.internal:3306/app?verifyServerCertificate=false"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_JDBC_URL: ")
        .hasMessageContaining("verifyServerCertificate=false", "OUTBOX_DB_TLS", "verify-full")
        .message()
        .doesNotContain("Zk3Pq9Vw");
    assertThat(read("jdbc:mysql://db.internal:3306/app?useSSL=true").dialect())
        .isEqualTo(SqlDialect.MYSQL);
  }

  @Test
  void otherUrls_areRefusedNamingTheVariable() {
    assertThatThrownBy(() -> read("jdbc:oracle:thin:@db:1521/app"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_JDBC_URL: 'jdbc:oracle:thin:@db:1521/app' is not");
  }

  @Test
  void aPasswordInTheUrl_isNeverPrinted_byARefusalNorByToString() {
    assertThatThrownBy(() -> read("jdbc:mariadb://app:Zk3Pq9Vw@db:3306/app?password=Zk3Pq9Vw"))
        .hasMessageContaining("'jdbc:mariadb://app:***@db:3306/app?password=***'")
        .hasMessageContaining("jdbc:mysql://app:***@db:3306/app?password=***")
        .message()
        .doesNotContain("Zk3Pq9Vw");
    assertThatThrownBy(() -> read("jdbc:oracle:thin:app/x@db?password=Zk3Pq9Vw"))
        .message()
        .doesNotContain("Zk3Pq9Vw");
    assertThat(read("jdbc:postgresql://db/app?user=app&password=Zk3Pq9Vw").toString())
        .contains("jdbc:postgresql://db/app?user=app&password=***")
        .doesNotContain("Zk3Pq9Vw");
  }

  private static DatabaseSettings withMemory(String megabytes) {
    return DatabaseSettings.fromEnvironment(
        new EnvironmentReader(
            Map.of(
                DatabaseSettings.JDBC_URL,
                "jdbc:postgresql://db:5432/app",
                DatabaseSettings.USER,
                "outbox",
                DatabaseSettings.PASSWORD,
                "secret",
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
                megabytes)));
  }

  @Test
  void resultBudget_isAThirtySecondOfTheFunctionsMemory_1024MbWhenLambdaDoesNotSay() {
    assertThat(withMemory("1024").resultBudgetBytes()).isEqualTo(32L * 1024 * 1024);
    assertThat(withMemory("128").resultBudgetBytes()).isEqualTo(4L * 1024 * 1024);
    assertThat(withMemory("10240").resultBudgetBytes()).isEqualTo(320L * 1024 * 1024);
    assertThat(read("jdbc:postgresql://db:5432/app").resultBudgetBytes())
        .isEqualTo(32L * 1024 * 1024);
  }

  @Test
  void aMemorySizeLambdaCannotHave_isRefusedAtStartUp_namingTheVariable() {
    assertThatThrownBy(() -> withMemory("64"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("AWS_LAMBDA_FUNCTION_MEMORY_SIZE: ");
    assertThatThrownBy(() -> withMemory("lots"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("AWS_LAMBDA_FUNCTION_MEMORY_SIZE: ");
  }
}
