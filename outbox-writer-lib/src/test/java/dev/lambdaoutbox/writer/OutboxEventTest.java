package dev.lambdaoutbox.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxEventTest {
  private static final String TOPIC = "arn:aws:sns:eu-west-1:123456789012:reservations";

  private static OutboxEvent.Builder valid() {
    return OutboxEvent.builder()
        .aggregateType("reservation")
        .aggregateId("r-42")
        .eventType("reservation.created")
        .payload("{\"id\":42}");
  }

  private static InvalidOutboxEventException refusal(OutboxEvent.Builder builder) {
    InvalidOutboxEventException e =
        catchThrowableOfType(InvalidOutboxEventException.class, builder::build);
    assertThat(e).as("build() should have refused the event").isNotNull();
    return e;
  }

  @Test
  void build_withRequiredFieldsOnly_fillsDefaults() {
    Instant before = Instant.now().truncatedTo(ChronoUnit.MICROS);

    OutboxEvent event = valid().build();

    assertThat(event.id().version()).isEqualTo(7);
    assertThat(event.aggregateType()).isEqualTo("reservation");
    assertThat(event.aggregateId()).isEqualTo("r-42");
    assertThat(event.eventType()).isEqualTo("reservation.created");
    assertThat(event.payload()).isEqualTo("{\"id\":42}");
    assertThat(event.headers()).isEmpty();
    assertThat(event.destination()).isEmpty();
    assertThat(event.idempotencyKey()).isEmpty();
    assertThat(event.occurredAt()).isBetween(before, Instant.now());
    assertThat(event.occurredAt().getNano() % 1_000).isZero();
  }

  @Test
  void build_twice_givesDistinctIds() {
    OutboxEvent.Builder builder = valid();

    assertThat(builder.build().id()).isNotEqualTo(builder.build().id());
  }

  @Test
  void build_withGivenIdAndTime_keepsThemAndTruncatesTimeToMicroseconds() {
    UUID id = UUID.fromString("0190f3c2-7b1a-7c3d-8e4f-a1b2c3d4e5f6");

    OutboxEvent event =
        valid().id(id).occurredAt(Instant.parse("2024-02-29T23:59:59.123456789Z")).build();

    assertThat(event.id()).isEqualTo(id);
    assertThat(event.occurredAt()).isEqualTo(Instant.parse("2024-02-29T23:59:59.123456Z"));
  }

  static Stream<Arguments> namedFields() {
    return Stream.of(
        Arguments.of("aggregateType", (Setter) OutboxEvent.Builder::aggregateType),
        Arguments.of("aggregateId", (Setter) OutboxEvent.Builder::aggregateId),
        Arguments.of("eventType", (Setter) OutboxEvent.Builder::eventType),
        Arguments.of("idempotencyKey", (Setter) OutboxEvent.Builder::idempotencyKey));
  }

  /** Sets one string field on a builder. */
  interface Setter {
    OutboxEvent.Builder set(OutboxEvent.Builder builder, String value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("namedFields")
  void build_whenNameFieldIsBlank_refusesNamingTheField(String field, Setter setter) {
    for (String blank : new String[] {"", " ", "\t\n"}) {
      assertThat(refusal(setter.set(valid(), blank)).field()).as("'%s'", blank).isEqualTo(field);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("namedFields")
  void build_whenNameFieldIsTooLong_refusesNamingTheField(String field, Setter setter) {
    String longest = "x".repeat(OutboxEvent.MAX_NAME_LENGTH);

    assertThat(setter.set(valid(), longest).build()).isNotNull();
    InvalidOutboxEventException e = refusal(setter.set(valid(), longest + "x"));
    assertThat(e.field()).isEqualTo(field);
    assertThat(e.getMessage()).startsWith(field + ": ").contains("256").contains("255");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("namedFields")
  void build_whenNameFieldHasCharacterSnsRefuses_refusesNamingTheField(
      String field, Setter setter) {
    for (String bad : new String[] {"a\u0000b", "a\u0001b", "a\uFFFFb", "a\uD800b"}) {
      assertThat(refusal(setter.set(valid(), bad)).field()).as("%s", bad).isEqualTo(field);
    }
  }

  @Test
  void build_withADelayOrATime_waitsForIt_theLastGivenWinning() {
    OutboxEvent delayed = valid().notBefore(Instant.now()).delay(Duration.ofSeconds(30)).build();
    OutboxEvent timed =
        valid()
            .delay(Duration.ofSeconds(30))
            .notBefore(Instant.parse("2026-03-01T10:00:00Z"))
            .build();

    assertThat(delayed.delay()).contains(Duration.ofSeconds(30));
    assertThat(delayed.notBefore()).isEmpty();
    assertThat(delayed.waitsForTime()).isTrue();
    assertThat(timed.notBefore()).contains(Instant.parse("2026-03-01T10:00:00Z"));
    assertThat(timed.delay()).isEmpty();
    assertThat(delayed.toBuilder().build()).isEqualTo(delayed);
    assertThat(valid().build().waitsForTime()).isFalse();
  }

  @Test
  void build_withADelayOfZeroOrLess_isDueAtOnce() {
    assertThat(valid().delay(Duration.ZERO).build().waitsForTime()).isFalse();
    assertThat(valid().delay(Duration.ofSeconds(-5)).build().waitsForTime()).isFalse();
  }

  @Test
  void build_withAWaitOverTheMaximum_refusesNamingTheField() {
    assertThat(valid().delay(OutboxEvent.MAX_DELAY).build().delay())
        .contains(OutboxEvent.MAX_DELAY);
    InvalidOutboxEventException delay =
        refusal(valid().delay(OutboxEvent.MAX_DELAY.plusSeconds(1)));
    InvalidOutboxEventException notBefore =
        refusal(valid().notBefore(Instant.now().plus(OutboxEvent.MAX_DELAY).plusSeconds(60)));

    assertThat(delay.field()).isEqualTo("delay");
    assertThat(delay).hasMessageContaining("366 days");
    assertThat(notBefore.field()).isEqualTo("notBefore");
  }

  @Test
  void build_whenRequiredNameIsMissing_refusesNamingTheField() {
    assertThat(refusal(valid().aggregateType(null)).field()).isEqualTo("aggregateType");
    assertThat(refusal(valid().aggregateId(null)).field()).isEqualTo("aggregateId");
    assertThat(refusal(valid().eventType(null)).field()).isEqualTo("eventType");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "{",
        "{\"a\":}",
        "{'a':1}",
        "not json",
        "[1,]",
        "{\"a\":1,}",
        "NaN",
        "01",
        "{\"a\":\"raw\ttab\"}",
        "// comment\n{}"
      })
  void build_whenPayloadIsNotJson_refusesNamingPayload(String payload) {
    InvalidOutboxEventException e = refusal(valid().payload(payload));

    assertThat(e.field()).isEqualTo("payload");
    assertThat(e.getMessage()).startsWith("payload: ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{} x", "{}{}", "1 2", "[1]]", "\"a\" \"b\"", "{\"a\":1} trailing"})
  void build_whenPayloadHasTextAfterTheJsonValue_refusesNamingPayload(String payload) {
    assertThat(refusal(valid().payload(payload)).field()).isEqualTo("payload");
  }

  @Test
  void build_whenPayloadIsMissing_refusesNamingPayload() {
    OutboxEvent.Builder noPayload =
        OutboxEvent.builder().aggregateType("a").aggregateId("b").eventType("c");

    assertThat(refusal(noPayload).field()).isEqualTo("payload");
    assertThat(refusal(valid().payload((String) null)).field()).isEqualTo("payload");
    assertThatThrownBy(() -> valid().payload((Object) null))
        .isInstanceOfSatisfying(
            InvalidOutboxEventException.class, e -> assertThat(e.field()).isEqualTo("payload"));
  }

  @Test
  void build_whenPayloadHoldsCharacterSnsRefuses_refusesNamingPayload() {
    // Valid JSON by its grammar, but not text SNS and SQS accept (nor, for the lone surrogate,
    // text that survives UTF-8).
    for (String bad : new String[] {"\"a\uFFFFb\"", "\"a\uFFFEb\"", "\"a\uD800b\"", "\"\uDC00\""}) {
      assertThat(refusal(valid().payload(bad)).field()).as("%s", bad).isEqualTo("payload");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "42",
        "-0.5e-3",
        "\"text\"",
        "null",
        "true",
        "[]",
        "{}",
        "  {\"a\" : 1}\n",
        "{\"emoji\":\"\uD83D\uDE00\",\"escaped\":\"\\u0000\\uffff\"}"
      })
  void payload_whenJsonText_keepsItByteForByte(String json) {
    assertThat(valid().payload(json).build().payload()).isEqualTo(json);
  }

  @Test
  void payload_whenJsonText_keepsKeyOrderWhitespaceAndNumberSpelling() {
    String json = "{ \"z\" : 1.50,\n  \"a\": [ 1e3, 0.10 ],\t\"a\": \"dup\" }";

    assertThat(valid().payload(json).build().payload()).isEqualTo(json);
  }

  record Reservation(String reservationId, int seats, List<String> tags) {}

  @Test
  void payload_whenObject_keepsWhatJacksonProduces() throws Exception {
    Reservation reservation = new Reservation("r-42", 2, List.of("window", "quiet"));
    Map<String, Object> ordered = new LinkedHashMap<>();
    ordered.put("z", 1);
    ordered.put("a", List.of(true, "x"));

    assertThat(valid().payload(reservation).build().payload())
        .isEqualTo("{\"reservationId\":\"r-42\",\"seats\":2,\"tags\":[\"window\",\"quiet\"]}")
        .isEqualTo(new ObjectMapper().writeValueAsString(reservation));
    assertThat(valid().payload(ordered).build().payload())
        .isEqualTo("{\"z\":1,\"a\":[true,\"x\"]}");
  }

  @Test
  void payload_whenObjectWithOwnMapper_usesThatMapper() {
    ObjectMapper snakeCase =
        new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    OutboxEvent event = valid().payload(new Reservation("r-1", 1, List.of()), snakeCase).build();

    assertThat(event.payload()).isEqualTo("{\"reservation_id\":\"r-1\",\"seats\":1,\"tags\":[]}");
  }

  /** No properties: Jackson refuses to serialize it by default. */
  static final class Opaque {}

  @Test
  void payload_whenObjectCannotBeSerialized_refusesNamingPayloadWithCause() {
    assertThatThrownBy(() -> valid().payload(new Opaque()))
        .isInstanceOfSatisfying(
            InvalidOutboxEventException.class,
            e -> {
              assertThat(e.field()).isEqualTo("payload");
              assertThat(e.getCause()).isNotNull();
            });
  }

  @Test
  void headers_whenValid_keepsThemInOrder() {
    OutboxEvent event =
        valid()
            .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            .header("tenant.id", "acme")
            .header("X-Source_1", "tab\tnewline\n emoji \uD83D\uDE00 \uFFFD")
            .build();

    assertThat(event.headers())
        .containsExactly(
            Map.entry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            Map.entry("tenant.id", "acme"),
            Map.entry("X-Source_1", "tab\tnewline\n emoji \uD83D\uDE00 \uFFFD"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "trace parent",
        "x/y",
        "caf\u00e9",
        "a:b",
        "AWS.trace",
        "aws.trace",
        "Amazon.x",
        "AMAZON.x",
        ".lead",
        "trail.",
        "a..b",
        "eventId",
        "eventType",
        "aggregateType",
        "aggregateId",
        "occurredAt",
        "ExtendedPayloadSize",
        "SQSLargePayloadSize"
      })
  void header_whenNameBreaksAttributeRules_refusesNamingTheHeader(String name) {
    assertThat(refusal(valid().header(name, "v")).field()).isEqualTo("headers." + name);
  }

  @Test
  void header_whenNameIsEmptyOrTooLong_refuses() {
    String tooLong = "h".repeat(256);

    assertThat(refusal(valid().header("", "v")).field()).isEqualTo("headers.");
    assertThat(refusal(valid().header(tooLong, "v")).field()).isEqualTo("headers." + tooLong);
    assertThat(valid().header("h".repeat(255), "v").build().headers()).hasSize(1);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"a\u0001b", "\u0000", "\uFFFF", "x\uFFFE", "\uD800", "\u001F"})
  void header_whenValueIsEmptyOrHasCharacterSnsRefuses_refusesNamingTheHeader(String value) {
    InvalidOutboxEventException e = refusal(valid().header("traceparent", value));

    assertThat(e.field()).isEqualTo("headers.traceparent");
  }

  @Test
  void headers_whenMoreThanFive_refusesNamingHeaders() {
    Map<String, String> five = new LinkedHashMap<>();
    for (int i = 1; i <= 5; i++) {
      five.put("h" + i, "v" + i);
    }
    assertThat(valid().headers(five).build().headers()).hasSize(5);

    InvalidOutboxEventException e = refusal(valid().headers(five).header("h6", "v6"));

    assertThat(e.field()).isEqualTo("headers");
    assertThat(e.getMessage()).contains("6").contains("5");
  }

  @Test
  void headers_replaceEarlierOnes() {
    OutboxEvent event = valid().header("a", "1").headers(Map.of("b", "2")).build();

    assertThat(event.headers()).containsExactly(Map.entry("b", "2"));
  }

  @Test
  void headers_ofBuiltEvent_cannotBeChangedAfterwards() {
    OutboxEvent.Builder builder = valid().header("a", "1");
    OutboxEvent event = builder.build();

    builder.header("b", "2");

    assertThat(event.headers()).containsOnlyKeys("a");
    assertThatThrownBy(() -> event.headers().put("c", "3"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        TOPIC,
        "arn:aws:sns:us-east-1:123456789012:orders.fifo",
        "arn:aws-cn:sns:cn-north-1:123456789012:orders",
        "https://sqs.us-east-1.amazonaws.com/123456789012/orders",
        "http://127.0.0.1:4566/000000000000/orders.fifo"
      })
  void destination_whenTopicArnOrQueueUrl_isKept(String destination) {
    assertThat(valid().destination(destination).build().destination()).contains(destination);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        " ",
        "orders",
        "arn:aws:sqs:us-east-1:123456789012:orders",
        "arn:aws:sns:us-east-1:12345:orders",
        "arn:aws:sns:us-east-1:123456789012:",
        "https://sqs.us-east-1.amazonaws.com/orders",
        "ftp://sqs.us-east-1.amazonaws.com/123456789012/orders",
        "https://sqs.us-east-1.amazonaws.com/123456789012/or ders"
      })
  void destination_whenNeitherTopicArnNorQueueUrl_refusesNamingDestination(String destination) {
    assertThat(refusal(valid().destination(destination)).field()).isEqualTo("destination");
  }

  @Test
  void destination_whenTooLong_refusesNamingDestination() {
    String tooLong = "https://sqs.example.com/123456789012/" + "q".repeat(2048);

    assertThat(refusal(valid().destination(tooLong)).field()).isEqualTo("destination");
  }

  @Test
  void toBuilder_copiesEveryField() {
    OutboxEvent original =
        valid()
            .header("traceparent", "00-abc-def-01")
            .header("tenant", "acme")
            .destination(TOPIC)
            .idempotencyKey("reserve-r-42")
            .occurredAt(Instant.parse("2025-06-01T10:00:00.000001Z"))
            .build();

    OutboxEvent copy = original.toBuilder().build();

    assertThat(copy).isEqualTo(original).isNotSameAs(original);
    assertThat(copy.id()).isEqualTo(original.id());
    assertThat(copy.aggregateType()).isEqualTo(original.aggregateType());
    assertThat(copy.aggregateId()).isEqualTo(original.aggregateId());
    assertThat(copy.eventType()).isEqualTo(original.eventType());
    assertThat(copy.payload()).isEqualTo(original.payload());
    assertThat(copy.headers()).containsExactlyEntriesOf(original.headers());
    assertThat(copy.destination()).isEqualTo(original.destination());
    assertThat(copy.idempotencyKey()).isEqualTo(original.idempotencyKey());
    assertThat(copy.occurredAt()).isEqualTo(original.occurredAt());
  }

  @Test
  void toBuilder_changesOnlyTheCopy() {
    OutboxEvent original = valid().header("a", "1").build();

    UnaryOperator<OutboxEvent.Builder> change =
        b -> b.aggregateId("r-43").header("b", "2").payload("[]");
    OutboxEvent changed = change.apply(original.toBuilder()).build();

    assertThat(changed.aggregateId()).isEqualTo("r-43");
    assertThat(changed.headers()).containsOnlyKeys("a", "b");
    assertThat(changed.payload()).isEqualTo("[]");
    assertThat(original.aggregateId()).isEqualTo("r-42");
    assertThat(original.headers()).containsOnlyKeys("a");
    assertThat(original.payload()).isEqualTo("{\"id\":42}");
    assertThat(changed).isNotEqualTo(original);
  }

  @Test
  void toString_leavesOutPayloadAndHeaders() {
    OutboxEvent event = valid().payload("{\"secret\":\"s3cr3t\"}").header("token", "t0k3n").build();

    assertThat(event.toString())
        .contains(event.id().toString())
        .doesNotContain("s3cr3t")
        .doesNotContain("t0k3n");
  }
}
