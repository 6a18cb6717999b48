package dev.lambdaoutbox.poller.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MatchableFieldsTest {
  private static final String LONG = "x".repeat(MatchableFields.MAX_STRING_CHARS + 1);

  @Test
  void keepsShortScalarsArraysOfThemAndObjectsOfThem_inOrder_andLeavesTheRest() {
    String payload =
        "{\"status\":\"PAID\",\"amount\":42.50,\"big\":12345678901234567890,\"open\":false,"
            + "\"gone\":null,\"blob\":\""
            + LONG
            + "\",\"customer\":{\"tier\":\"gold\",\"note\":\""
            + LONG
            + "\",\"address\":{\"country\":\"FR\"}},\"tags\":[\"a\",1,true],"
            + "\"lines\":[{\"sku\":\"x\"}],\"mixed\":[\"a\",\""
            + LONG
            + "\"],\"empty\":{\"note\":\""
            + LONG
            + "\"},\"none\":[]}";

    assertThat(MatchableFields.of(payload, 8192))
        .isEqualTo(
            "\"status\":\"PAID\",\"amount\":42.50,\"big\":12345678901234567890,\"open\":false,"
                + "\"gone\":null,\"customer\":{\"tier\":\"gold\",\"address\":{\"country\":\"FR\"}},"
                + "\"tags\":[\"a\",1,true],\"none\":[]");
  }

  @Test
  void staysWithinItsBudget_skippingWhatDoesNotFit_andKeepingALaterFieldThatDoes() {
    String payload = "{\"a\":\"" + "y".repeat(200) + "\",\"b\":\"short\",\"c\":1}";

    assertThat(MatchableFields.of(payload, 30)).isEqualTo("\"b\":\"short\",\"c\":1");
    assertThat(MatchableFields.of(payload, 13)).isEqualTo("\"b\":\"short\"");
    assertThat(MatchableFields.of(payload, 0)).isEmpty();
    String all = MatchableFields.of(payload, 8192);
    assertThat(all.length())
        .isEqualTo(all.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
  }

  @Test
  void theByteBudget_countsUtf8_andEscapesAsJsonDoes() {
    String payload = "{\"name\":\"caf\u00e9 \\\"x\\\"\",\"emoji\":\"\uD83D\uDE00\"}";

    String fields = MatchableFields.of(payload, 8192);
    assertThat(fields).isEqualTo("\"name\":\"caf\u00e9 \\\"x\\\"\",\"emoji\":\"\uD83D\uDE00\"");
    int bytes = fields.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    assertThat(MatchableFields.of(payload, bytes)).isEqualTo(fields);
    assertThat(MatchableFields.of(payload, bytes - 1))
        .isEqualTo("\"name\":\"caf\u00e9 \\\"x\\\"\"");
  }

  @Test
  void thePointersOwnNames_atTheTop_areLeftToThePointer() {
    String payload =
        "{\"payloadS3Pointer\":{\"s3BucketName\":\"evil\"},\"extendedPayloadSize\":1,"
            + "\"inner\":{\"extendedPayloadSize\":2}}";

    assertThat(MatchableFields.of(payload, 8192))
        .isEqualTo("\"inner\":{\"extendedPayloadSize\":2}");
  }

  @Test
  void notAnObject_orNotJson_keepsNothing() {
    assertThat(MatchableFields.of("[1,2]", 8192)).isEmpty();
    assertThat(MatchableFields.of("\"text\"", 8192)).isEmpty();
    assertThat(MatchableFields.of("{\"a\":", 8192)).isEmpty();
  }

  @Test
  void objectsDeeperThanTheLimit_areLeftOut() {
    String deep = "{\"v\":1}";
    for (int i = 0; i < MatchableFields.MAX_DEPTH; i++) {
      deep = "{\"d\":" + deep + "}";
    }

    assertThat(MatchableFields.of(deep, 8192)).doesNotContain("\"v\"");
  }
}
