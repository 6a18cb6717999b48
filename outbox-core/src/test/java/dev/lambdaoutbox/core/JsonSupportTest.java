package dev.lambdaoutbox.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonSupportTest {

  @Test
  void problemWith_whenOneJsonValue_isNull() {
    assertThat(JsonSupport.problemWith("{\"a\":[1,2,{\"b\":null}]}")).isNull();
    assertThat(JsonSupport.problemWith(" \n 7 \t")).isNull();
  }

  @Test
  void problemWith_whenTrailingValue_pointsAtIt() {
    assertThat(JsonSupport.problemWith("{}\n  []")).contains("after the end").contains("line 2");
  }

  @Test
  void problemWith_whenMalformed_saysWhere() {
    assertThat(JsonSupport.problemWith("{\"a\":\n ]"))
        .contains("not valid JSON")
        .contains("line 2");
  }

  @Test
  void encodeHeaders_roundTripsInOrder() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("z", "quote \" backslash \\ newline \n");
    headers.put("a", "\uD83D\uDE00");

    String json = JsonSupport.encodeHeaders(headers);

    assertThat(JsonSupport.decodeHeaders(json)).containsExactlyEntriesOf(headers);
    assertThat(json).startsWith("{\"z\":");
  }

  @Test
  void encodeHeaders_whenNone_isNull() {
    assertThat(JsonSupport.encodeHeaders(Map.of())).isNull();
    assertThat(JsonSupport.decodeHeaders(null)).isEmpty();
    assertThat(JsonSupport.decodeHeaders("")).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "[1]                   | it is an array, not an object",
        "null                  | it is null, not an object",
        "'\"a\"'             | it is a string, not an object",
        "{\"a\":null}        | the value of \"a\" is null",
        "{\"a\":1}           | the value of \"a\" is a number",
        "{\"a\":{}}          | the value of \"a\" is an object",
        "{\"a\":\"x\",\"a\":\"y\"} | it names \"a\" twice",
        "{} []                 | it has text after the end of the object",
        "'  '                  | it is empty, not an object",
        "{\"a\":             | is not valid JSON"
      })
  void decodeHeaders_whenNotOneObjectOfStrings_refusesSayingWhy(String json, String why) {
    assertThatThrownBy(() -> JsonSupport.decodeHeaders(json))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(why);
  }
}
