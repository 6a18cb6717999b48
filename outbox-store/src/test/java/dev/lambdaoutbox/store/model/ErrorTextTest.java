package dev.lambdaoutbox.store.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrorTextTest {
  @Test
  void reason_isCutToFourThousandChars() {
    assertThat(ErrorText.reason("r".repeat(5000))).hasSize(4000);
    assertThat(ErrorText.reason("short")).isEqualTo("short");
    assertThat(ErrorText.reason(null)).isNull();
  }

  @Test
  void cut_neverSplitsASurrogatePair() {
    String text = "a".repeat(3999) + "😀" + "tail";

    assertThat(ErrorText.reason(text)).isEqualTo("a".repeat(3999));
  }

  @Test
  void nulCharacters_areDropped_asPostgresTextCannotHoldThem() {
    assertThat(ErrorText.reason("bad\0byte")).isEqualTo("badbyte");
  }

  @Test
  void deadLetterCode_isNeverEmpty() {
    assertThat(ErrorText.requiredCode(null)).isEqualTo("UNKNOWN");
    assertThat(ErrorText.requiredCode(" ")).isEqualTo("UNKNOWN");
    assertThat(ErrorText.requiredCode("c".repeat(200))).hasSize(128);
  }
}
