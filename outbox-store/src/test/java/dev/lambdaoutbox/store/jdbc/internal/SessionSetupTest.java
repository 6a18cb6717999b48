package dev.lambdaoutbox.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SessionSetupTest {
  private static final ConnectionLimits LIMITS =
      new ConnectionLimits(
          Duration.ofMillis(2500),
          Duration.ofSeconds(20),
          Duration.ofMillis(7500),
          Duration.ofSeconds(9),
          Duration.ofSeconds(30));

  @Test
  void postgresDriver_getsTimeoutsInWholeSeconds_roundedUp() {
    Properties p =
        SessionSetup.driverProperties(
            SqlDialect.POSTGRESQL, "jdbc:postgresql://db:5432/app", LIMITS);

    assertThat(p)
        .containsEntry("connectTimeout", "3")
        .containsEntry("loginTimeout", "3")
        .containsEntry("socketTimeout", "20")
        .containsEntry("tcpKeepAlive", "true");
  }

  @Test
  void mysqlDriver_getsTimeoutsInMilliseconds() {
    Properties p =
        SessionSetup.driverProperties(SqlDialect.MYSQL, "jdbc:mysql://db:3306/app", LIMITS);

    assertThat(p).containsEntry("connectTimeout", "2500").containsEntry("socketTimeout", "20000");
  }

  @Test
  void aSettingInTheUrl_winsOverOurs() {
    Properties p =
        SessionSetup.driverProperties(
            SqlDialect.POSTGRESQL, "jdbc:postgresql://db/app?ssl=true&socketTimeout=120", LIMITS);

    assertThat(p).doesNotContainKey("socketTimeout").containsEntry("connectTimeout", "3");
  }

  @Test
  void postgresSession_boundsStatementsLocksAndIdleTransactions() {
    assertThat(SessionSetup.sessionStatements(SqlDialect.POSTGRESQL, false, LIMITS))
        .containsExactly(
            "SET statement_timeout = 7500",
            "SET lock_timeout = 7500",
            "SET idle_in_transaction_session_timeout = 9000");
  }

  @Test
  void mariaDbSession_usesItsOwnStatementAndIdleTimeouts() {
    assertThat(SessionSetup.sessionStatements(SqlDialect.MYSQL, true, LIMITS))
        .containsExactly(
            "SET SESSION innodb_lock_wait_timeout = 8",
            "SET SESSION max_statement_time = 7.500",
            "SET SESSION idle_transaction_timeout = 9");
  }

  @Test
  void mysqlSession_boundsSelectsAndLockWaits() {
    assertThat(SessionSetup.sessionStatements(SqlDialect.MYSQL, false, LIMITS))
        .containsExactly(
            "SET SESSION innodb_lock_wait_timeout = 8", "SET SESSION max_execution_time = 7500");
  }
}
