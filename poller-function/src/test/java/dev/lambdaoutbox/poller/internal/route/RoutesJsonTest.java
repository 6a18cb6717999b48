package dev.lambdaoutbox.poller.internal.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoutesJsonTest {
  @Test
  void read_object_keepsOrderAndTellsStringsFromOtherValues() throws IOException {
    Map<String, RoutesJson.Value> fields =
        RoutesJson.read(
            "{\"b.*\":\"arn:b\", \"a\":42, \"c\":{\"x\": [1, \"}\"]}, \"d\":null, \"e\":\"\\u0041\\n\"}");

    assertThat(fields)
        .containsExactly(
            Map.entry("b.*", new RoutesJson.Value("arn:b", true)),
            Map.entry("a", new RoutesJson.Value("42", false)),
            Map.entry("c", new RoutesJson.Value("{\"x\": [1, \"}\"]}", false)),
            Map.entry("d", new RoutesJson.Value("null", false)),
            Map.entry("e", new RoutesJson.Value("A\n", true)));
  }

  @Test
  void read_repeatedName_keepsFirstPlaceAndLastValue() throws IOException {
    assertThat(RoutesJson.read("{\"a\":1,\"b\":\"x\",\"a\":\"y\"}"))
        .containsExactly(
            Map.entry("a", new RoutesJson.Value("y", true)),
            Map.entry("b", new RoutesJson.Value("x", true)));
  }

  @Test
  void read_emptyObject_isEmpty() throws IOException {
    assertThat(RoutesJson.read(" {} ")).isEmpty();
  }

  @Test
  void isEmptyObject_onlyForBracesAndJsonWhitespace() {
    assertThat(RoutesJson.isEmptyObject("{}")).isTrue();
    assertThat(RoutesJson.isEmptyObject(" \t{\r\n }\n")).isTrue();
    assertThat(RoutesJson.isEmptyObject("{} x")).isFalse();
    assertThat(RoutesJson.isEmptyObject("{ \"a\" }")).isFalse();
    assertThat(RoutesJson.isEmptyObject("\u2003{}")).isFalse();
    assertThat(RoutesJson.isEmptyObject("{")).isFalse();
    assertThat(RoutesJson.isEmptyObject("")).isFalse();
  }

  @Test
  void read_notAnObject_isNull() throws IOException {
    assertThat(RoutesJson.read("[\"arn:b\"]")).isNull();
    assertThat(RoutesJson.read("\"arn:b\"")).isNull();
    assertThat(RoutesJson.read("")).isNull();
  }

  @Test
  void read_invalidJson_throws() {
    assertThatThrownBy(() -> RoutesJson.read("{\"a\":")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> RoutesJson.read("{a: \"b\"}")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> RoutesJson.read("{\"a\":\"b\"")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> RoutesJson.read("{\"a\":\"b\",}")).isInstanceOf(IOException.class);
  }
}
