package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad settings fail at construction, naming the setting. */
class PollerWakerBuilderTest {
  @Test
  void aBlankFunctionName_isRefused_namingIt() {
    assertThatThrownBy(() -> PollerWaker.builder().functionName("  "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("functionName: must not be blank");
    assertThatThrownBy(() -> PollerWaker.builder().functionName(null))
        .hasMessageStartingWith("functionName: must not be blank");
  }

  @Test
  void noFunctionName_isRefusedAtBuild_namingIt() {
    assertThatThrownBy(() -> PollerWaker.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("functionName: not set");
  }

  @Test
  void anIntervalOutOfRange_isRefused_namingItAndTheRange() {
    assertThatThrownBy(() -> PollerWaker.builder().interval(Duration.ofMillis(9)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("interval: must be 10 ms to 60000 ms, was 9 ms");
    assertThatThrownBy(() -> PollerWaker.builder().interval(Duration.ofSeconds(61)))
        .hasMessage("interval: must be 10 ms to 60000 ms, was 61000 ms");
  }
}
