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
                    ConnectionLimits.CONNECT_TIMEOUT, "1500",
                    ConnectionLimits.SOCKET_TIMEOUT, "12000",
                    ConnectionLimits.STATEMENT_TIMEOUT, "4000",
                    ConnectionLimits.IDLE_IN_TRANSACTION_TIMEOUT, "6000",
                    ConnectionLimits.VALIDATION_INTERVAL, "0")));

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
                ConnectionLimits.SOCKET_TIMEOUT, "5000",
                ConnectionLimits.STATEMENT_TIMEOUT, "5000"));

    assertThatThrownBy(() -> ConnectionLimits.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_DB_SOCKET_TIMEOUT_MS: 5000ms is not longer than");
  }

  @Test
  void refusesAnOutOfRangeValue_namingTheVariable() {
    EnvironmentReader env = new EnvironmentReader(Map.of(ConnectionLimits.CONNECT_TIMEOUT, "10"));

    assertThatThrownBy(() -> ConnectionLimits.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("OUTBOX_DB_CONNECT_TIMEOUT_MS");
  }
}
