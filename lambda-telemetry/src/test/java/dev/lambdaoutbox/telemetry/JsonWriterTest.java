package dev.lambdaoutbox.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The writer against Jackson's {@code ObjectMapper}, which wrote these lines before it. */
class JsonWriterTest {
  private static final ObjectMapper JACKSON = new ObjectMapper();

  @Test
  void write_everyCharBelow128AndBeyond_escapesAsJacksonDoes() throws Exception {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 256; c++) {
      all.append(c);
    }
    all.append("é中\u2028\u2029\uFEFF\uD83D\uDE00 end"); // accents, CJK, separators, BOM, an emoji
    String text = all.toString();

    String json = JsonWriter.write(text);

    assertThat(json).isEqualTo(JACKSON.writeValueAsString(text));
    assertThat(JACKSON.readValue(json, String.class)).isEqualTo(text);
    assertThat(json)
        .contains("\\u0000", "\\u001F", "\\b", "\\t", "\\n", "\\f", "\\r", "\\\"", "\\\\")
        .contains("/", "\u007F", "é中\u2028");
  }

  @Test
  void write_unpairedSurrogates_keepsThemAsJacksonDoes() throws Exception {
    String text = "a\uD800b\uDC00c";

    assertThat(JsonWriter.write(text)).isEqualTo(JACKSON.writeValueAsString(text));
  }

  @Test
  void write_numbers_asJacksonWritesThem() throws Exception {
    List<Object> numbers =
        List.of(
            0,
            -1,
            Integer.MAX_VALUE,
            Long.MIN_VALUE,
            (short) 7,
            (byte) -8,
            12.5,
            0.1 + 0.2,
            1e21,
            1e-7,
            -0.0,
            Double.MAX_VALUE,
            Double.MIN_VALUE,
            3.0,
            1.5f,
            0.1f,
            new BigInteger("123456789012345678901234567890"),
            new AtomicLong(42));

    for (Object number : numbers) {
      assertThat(JsonWriter.write(number))
          .as("%s (%s)", number, number.getClass().getSimpleName())
          .isEqualTo(JACKSON.writeValueAsString(number));
    }
  }

  @Test
  void write_notFiniteNumbers_asStringsAsJacksonDoes() throws Exception {
    for (Object number :
        List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Float.NaN)) {
      assertThat(JsonWriter.write(number)).isEqualTo(JACKSON.writeValueAsString(number));
    }
    assertThat(JsonWriter.write(Double.NaN)).isEqualTo("\"NaN\"");
  }

  @Test
  void write_nestedMapsListsArraysAndScalars_asJacksonWritesThem() throws Exception {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("empty", Map.of());
    inner.put("none", List.of());
    inner.put("null", null);
    inner.put("flag", false);
    Map<Object, Object> root = new LinkedHashMap<>();
    root.put("a", 1);
    root.put("list", Arrays.asList(1, "two", null, 3.5, List.of(List.of()), inner));
    root.put("array", new Object[] {"x", 2L, true});
    root.put("unit", TimeUnit.SECONDS);
    root.put("char", 'q');
    root.put("text\n\"key\"", new StringBuilder("built"));
    root.put("last", new ArrayList<>(List.of(Map.of("k", "v"))));

    String json = JsonWriter.write(root);

    assertThat(json).isEqualTo(JACKSON.writeValueAsString(root));
    JsonNode parsed = JACKSON.readTree(json);
    assertThat(parsed.at("/list/5/flag").asBoolean(true)).isFalse();
    assertThat(parsed.get("text\n\"key\"").asText()).isEqualTo("built");
  }

  @Test
  void write_scalarsAtTopLevel() {
    assertThat(JsonWriter.write(null)).isEqualTo("null");
    assertThat(JsonWriter.write(true)).isEqualTo("true");
    assertThat(JsonWriter.write("")).isEqualTo("\"\"");
    assertThat(JsonWriter.write(List.of())).isEqualTo("[]");
    assertThat(JsonWriter.write(Map.of())).isEqualTo("{}");
  }

  @Test
  void write_raw_asItIs_whereAJacksonTreeWasWrittenAsTheTree() throws Exception {
    JsonNode tree = JACKSON.readTree("{\"replayed\":[\"a\",\"b\"],\"count\":2}");
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("report", tree);

    assertThat(JsonWriter.write(Map.of("report", new JsonWriter.Raw(tree.toString()))))
        .isEqualTo(JACKSON.writeValueAsString(line))
        .isEqualTo("{\"report\":{\"replayed\":[\"a\",\"b\"],\"count\":2}}");
  }

  @Test
  void write_iterableThatIsNoCollection_asItsTextNotItsElements() throws Exception {
    JsonNode tree = JACKSON.readTree("{\"a\":1}"); // Iterable over its values

    assertThat(JsonWriter.write(tree)).isEqualTo("\"{\\\"a\\\":1}\"");
  }

  @Test
  void write_otherObjects_asTheirTextInAString() {
    Object odd =
        new Object() {
          @Override
          public String toString() {
            return "odd \"one\"";
          }
        };

    assertThat(JsonWriter.write(Map.of("v", odd))).isEqualTo("{\"v\":\"odd \\\"one\\\"\"}");
  }
}
