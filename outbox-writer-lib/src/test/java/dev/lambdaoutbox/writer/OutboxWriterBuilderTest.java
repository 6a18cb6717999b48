package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxWriterBuilderTest {

  @ParameterizedTest
  @ValueSource(ints = {0, -1, Integer.MIN_VALUE, 16 * 1024 * 1024, Integer.MAX_VALUE})
  void maxPayloadBytes_whenNotPositiveOrOverWhatThePayloadColumnHolds_refusesNamingTheSetting(
      int bytes) {
    assertThatThrownBy(() -> OutboxWriter.builder().maxPayloadBytes(bytes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxPayloadBytes: ")
        .hasMessageContaining(String.valueOf(bytes))
        .hasMessageContaining("16777215");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 256 * 1024, 256 * 1024 + 1, 16 * 1024 * 1024 - 1})
  void maxPayloadBytes_upToWhatMariaDbsMediumtextHolds_isAccepted_forTheClaimCheck(int bytes) {
    assertThat(OutboxWriter.builder().maxPayloadBytes(bytes).build()).isNotNull();
    assertThat(OutboxWriter.MAX_CLAIM_CHECK_PAYLOAD_BYTES).isEqualTo(16_777_215);
  }

  @Test
  void tablePrefix_whenInvalid_refusesAtConfiguration() {
    assertThatThrownBy(() -> OutboxWriter.builder().tablePrefix("bad-prefix"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tablePrefix: ");
  }

  @Test
  void build_withDefaults_givesAWriter() {
    assertThat(OutboxWriter.create()).isNotNull();
    assertThat(OutboxWriter.DEFAULT_MAX_PAYLOAD_BYTES).isEqualTo(262_144);
  }
}
