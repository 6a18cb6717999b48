package dev.lambdaoutbox.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Utf8Test {

  @ParameterizedTest
  @ValueSource(
      strings = {"", "ascii", "caf\u00e9", "\u20ac100", "\uD83D\uDE00 smile", "\u07FF\u0800\uFFFD"})
  void length_matchesTheEncoder(String text) {
    assertThat(Utf8.length(text)).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void length_countsAnUnpairedSurrogateAsTheEncodersReplacement() {
    String text = "a\uD800b\uDC00";

    assertThat(Utf8.length(text)).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
  }
}
