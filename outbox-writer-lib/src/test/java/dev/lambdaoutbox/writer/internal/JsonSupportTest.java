package dev.lambdaoutbox.writer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

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

  @Test
  void decodeHeaders_whenNotAStringMap_refuses() {
    assertThatThrownBy(() -> JsonSupport.decodeHeaders("[1]"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
