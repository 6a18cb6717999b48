package dev.lambdaoutbox.store.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectionLimitsTest {
  @Test
  void defaults_whenNothingIsSet() {
    assertThat(ConnectionLimits.fromEnvironment(new EnvironmentReader(Map.of())))
        .isEqualTo(ConnectionLimits.defaults());
  }

  @Test
  void readsEachVariableInMilliseconds() {
    ConnectionLimits limits =
        ConnectionLimits.fromEnvironment(
            new EnvironmentReader(
                Map.of(
                    DatabaseVariables.CONNECT_TIMEOUT.name(), "1500",
                    DatabaseVariables.SOCKET_TIMEOUT.name(), "12000",
                    DatabaseVariables.STATEMENT_TIMEOUT.name(), "4000",
                    DatabaseVariables.IDLE_IN_TRANSACTION_TIMEOUT.name(), "6000",
                    DatabaseVariables.VALIDATION_INTERVAL.name(), "0")));

    assertThat(limits)
        .isEqualTo(
            new ConnectionLimits(
                Duration.ofMillis(1500),
                Duration.ofSeconds(12),
                Duration.ofSeconds(4),
                Duration.ofSeconds(6),
                Duration.ZERO));
  }

  @Test
  void refusesASocketTimeoutNotLongerThanTheStatementTimeout() {
    EnvironmentReader env =
        new EnvironmentReader(
            Map.of(
                DatabaseVariables.SOCKET_TIMEOUT.name(), "5000",
                DatabaseVariables.STATEMENT_TIMEOUT.name(), "5000"));

    assertThatThrownBy(() -> ConnectionLimits.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_DB_SOCKET_TIMEOUT_MS: 5000ms is not longer than");
  }

  @Test
  void refusesAnOutOfRangeValue_namingTheVariable() {
    EnvironmentReader env =
        new EnvironmentReader(Map.of(DatabaseVariables.CONNECT_TIMEOUT.name(), "10"));

    assertThatThrownBy(() -> ConnectionLimits.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("OUTBOX_DB_CONNECT_TIMEOUT_MS");
  }
}
