package dev.lambdaoutbox.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class MessageAttributeRulesTest {

  @ParameterizedTest
  @ValueSource(strings = {"traceparent", "tenant.id", "X-Correlation_Id", "a", "AWSx", "v1.2.3"})
  void problemWithName_whenAcceptable_isNull(String name) {
    assertThat(MessageAttributeRules.problemWithName(name)).isNull();
  }

  @Test
  void problemWithName_atTheLengthLimit_isNullAndOneMoreIsRefused() {
    assertThat(MessageAttributeRules.problemWithName("n".repeat(255))).isNull();
    assertThat(MessageAttributeRules.problemWithName("n".repeat(256))).contains("255");
  }

  @ParameterizedTest
  @NullAndEmptySource
  void problemWithName_whenEmpty_saysSo(String name) {
    assertThat(MessageAttributeRules.problemWithName(name)).contains("empty");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a b", "a/b", "a:b", "\u00e9", "a\tb", "a*"})
  void problemWithName_whenCharacterOutsideTheAllowedSet_namesTheRule(String name) {
    assertThat(MessageAttributeRules.problemWithName(name)).contains("only letters, digits");
  }

  @ParameterizedTest
  @ValueSource(strings = {".a", "a.", "a..b", "."})
  void problemWithName_whenDotsMisplaced_namesTheRule(String name) {
    assertThat(MessageAttributeRules.problemWithName(name)).contains("'.'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"AWS.x", "aws.x", "Aws.X", "Amazon.x", "amazon.x", "AMAZON.sqs"})
  void problemWithName_whenAwsPrefix_isReserved(String name) {
    assertThat(MessageAttributeRules.problemWithName(name)).contains("reserved by AWS");
  }

  @ParameterizedTest
  @ValueSource(strings = {"eventId", "eventType", "aggregateType", "aggregateId", "occurredAt"})
  void problemWithName_whenTheOutboxSetsIt_isRefused(String name) {
    assertThat(MessageAttributeRules.problemWithName(name)).contains("set by the outbox");
  }

  /**
   * A header under the claim check's attribute names would make a message look like a pointer to
   * any S3 object, or overwrite a real pointer's size: consumers, ours and AWS's extended clients,
   * decide by the attribute alone.
   */
  @ParameterizedTest
  @ValueSource(strings = {"ExtendedPayloadSize", "SQSLargePayloadSize"})
  void problemWithName_whenTheClaimCheckSetsIt_isRefused(String name) {
    assertThat(MessageAttributeRules.problemWithName(name))
        .contains("'" + name + "'")
        .contains("claim check");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "v",
        " ",
        "tab\there",
        "line\nbreak\r",
        "\uD7FF",
        "\uE000",
        "\uFFFD",
        "\uD83D\uDE00"
      })
  void problemWithValue_whenXmlText_isNull(String value) {
    assertThat(MessageAttributeRules.problemWithValue(value)).isNull();
  }

  @ParameterizedTest
  @NullAndEmptySource
  void problemWithValue_whenEmpty_saysSo(String value) {
    assertThat(MessageAttributeRules.problemWithValue(value)).contains("empty");
  }

  @Test
  void problemWithValue_whenCharacterOutsideXml_namesCodePointAndIndex() {
    assertThat(MessageAttributeRules.problemWithValue("ab\u0001"))
        .contains("U+0001")
        .contains("index 2");
    assertThat(MessageAttributeRules.problemWithValue("\uFFFF")).contains("U+FFFF");
    assertThat(MessageAttributeRules.problemWithValue("x\uFFFE")).contains("U+FFFE");
    assertThat(MessageAttributeRules.problemWithValue("\u0000")).contains("U+0000");
    assertThat(MessageAttributeRules.problemWithValue("\u001F")).contains("U+001F");
    assertThat(MessageAttributeRules.problemWithValue("\uD800x")).contains("U+D800");
    assertThat(MessageAttributeRules.problemWithValue("x\uDC00")).contains("U+DC00");
  }

  @Test
  void problemWithCharacters_acceptsXmlTextAndNamesTheFirstOtherCharacter() {
    assertThat(MessageAttributeRules.problemWithCharacters("")).isNull();
    assertThat(MessageAttributeRules.problemWithCharacters("{\"a\":\"\uD83D\uDE00\t\"}\r\n"))
        .isNull();
    assertThat(MessageAttributeRules.problemWithCharacters("\uD83D\uDE00\uFFFF"))
        .contains("U+FFFF")
        .contains("index 2");
    assertThat(MessageAttributeRules.problemWithCharacters("ok\uDE00\uD83D")).contains("U+DE00");
    assertThat(MessageAttributeRules.problemWithCharacters("end\uD83D")).contains("U+D83D");
  }

  @Test
  void isXmlChar_followsXml10() {
    assertThat(MessageAttributeRules.isXmlChar(0x9)).isTrue();
    assertThat(MessageAttributeRules.isXmlChar(0xA)).isTrue();
    assertThat(MessageAttributeRules.isXmlChar(0xD)).isTrue();
    assertThat(MessageAttributeRules.isXmlChar(0x20)).isTrue();
    assertThat(MessageAttributeRules.isXmlChar(0x10FFFF)).isTrue();
    assertThat(MessageAttributeRules.isXmlChar(0x0)).isFalse();
    assertThat(MessageAttributeRules.isXmlChar(0x8)).isFalse();
    assertThat(MessageAttributeRules.isXmlChar(0xB)).isFalse();
    assertThat(MessageAttributeRules.isXmlChar(0x1F)).isFalse();
    assertThat(MessageAttributeRules.isXmlChar(0xD800)).isFalse();
    assertThat(MessageAttributeRules.isXmlChar(0xDFFF)).isFalse();
    assertThat(MessageAttributeRules.isXmlChar(0xFFFE)).isFalse();
    assertThat(MessageAttributeRules.isXmlChar(0xFFFF)).isFalse();
  }
}
