package dev.lambdaoutbox.reprocessor;

import static dev.lambdaoutbox.reprocessor.DeadLetterBuilder.deadLetter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.JsonSupport;
import dev.lambdaoutbox.core.UuidV7;
import dev.lambdaoutbox.store.model.audit.AuditCursor;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.model.deadletter.DeadLetterCursor;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed requests are refused with a JSON error naming the field, as a Lambda error, and change
 * nothing: every case runs against tables holding dead letters, an outbox row and audit rows, and
 * the tables must be identical afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadLetterRequestValidationTest {
  static final String A = "0190a6f2-7c1e-7d3a-9b1f-2f1c9a3e4b5d";
  static final String B = "0190a6f2-7c1e-7d3a-9b1f-2f1c9a3e4b5e";

  private final TestDatabase db = TestEndpoints.postgres();
  private ReprocessorHarness reprocessor;
  private String before;

  @BeforeAll
  void seed() {
    reprocessor = new ReprocessorHarness(db, db.createTables("dlv"), 100);
    DeadLetter a = deadLetter().id(UUID.fromString(A)).error("SNS_NOT_FOUND", "gone").build();
    DeadLetter b = deadLetter().id(UUID.fromString(B)).eventType("OrderShipped").build();
    DeadLetter c = deadLetter().build();
    reprocessor.rows.seed(a, b, c);
    reprocessor.rows.seedPending(UuidV7.generate(), "key-1");
    // One real discard, so the audit table is not empty either.
    reprocessor.invoke("{\"action\":\"discard\",\"ids\":[\"" + c.id() + "\"],\"reason\":\"seed\"}");
    before = reprocessor.rows.snapshot();
  }

  @AfterAll
  void drop() {
    reprocessor.close();
    db.dropTables(reprocessor.tables);
  }

  /** A failure group's fingerprint, as a listing by group gives it. */
  static final String GROUP = "3f1c2a9e7b604d5e8a1b2c3d4e5f6a7b";

  static Stream<Arguments> malformedRequests() {
    String ids1001 =
        IntStream.range(0, 1001)
            .mapToObj(i -> "\"" + UuidV7.generate() + "\"")
            .collect(Collectors.joining(","));
    return Stream.of(
        arguments("empty body", "", "body"),
        arguments("blank body", "  \n ", "body"),
        arguments("not JSON", "{action: list}", "body"),
        arguments("JSON array", "[{\"action\":\"list\"}]", "body"),
        arguments("JSON string", "\"list\"", "body"),
        arguments("text after the object", "{\"action\":\"list\"} {}", "body"),
        arguments("no action", "{\"limit\":5}", "action"),
        arguments("unknown action", "{\"action\":\"replai\",\"ids\":[\"" + A + "\"]}", "action"),
        arguments("action not a string", "{\"action\":1}", "action"),
        arguments(
            "repeated key",
            "{\"action\":\"list\",\"action\":\"discard\",\"reason\":\"x\"}",
            "action"),
        arguments(
            "repeated key in the filter",
            "{\"action\":\"replay\",\"filter\":{\"eventType\":\"A\",\"eventType\":\"B\"}}",
            "filter.eventType"),
        arguments(
            "malformed id", "{\"action\":\"replay\",\"ids\":[\"" + A + "\",\"abc\"]}", "ids[1]"),
        arguments(
            "UUID without dashes",
            "{\"action\":\"replay\",\"ids\":[\"" + A.replace("-", "") + "\"]}",
            "ids[0]"),
        arguments("id not a string", "{\"action\":\"replay\",\"ids\":[42]}", "ids[0]"),
        arguments(
            "repeated id",
            "{\"action\":\"replay\",\"ids\":[\""
                + A
                + "\",\""
                + B
                + "\",\""
                + A.toUpperCase()
                + "\"]}",
            "ids[2]"),
        arguments("ids not an array", "{\"action\":\"replay\",\"ids\":\"" + A + "\"}", "ids"),
        arguments("empty ids", "{\"action\":\"replay\",\"ids\":[]}", "ids"),
        arguments("1,001 ids", "{\"action\":\"replay\",\"ids\":[" + ids1001 + "]}", "ids"),
        arguments("replay with no selection", "{\"action\":\"replay\"}", "filter"),
        arguments(
            "replay with no selection, dry run false",
            "{\"action\":\"replay\",\"dryRun\":false}",
            "filter"),
        arguments("replay with an empty filter", "{\"action\":\"replay\",\"filter\":{}}", "filter"),
        arguments("replay with all false", "{\"action\":\"replay\",\"all\":false}", "filter"),
        arguments(
            "all together with a filter",
            "{\"action\":\"replay\",\"all\":true,\"filter\":{\"errorCode\":\"X\"}}",
            "all"),
        arguments("all not a boolean", "{\"action\":\"replay\",\"all\":\"yes\"}", "all"),
        arguments(
            "ids with a filter",
            "{\"action\":\"replay\",\"ids\":[\"" + A + "\"],\"filter\":{\"errorCode\":\"X\"}}",
            "filter"),
        arguments(
            "ids with all", "{\"action\":\"replay\",\"ids\":[\"" + A + "\"],\"all\":true}", "all"),
        arguments(
            "ids with a limit",
            "{\"action\":\"replay\",\"ids\":[\"" + A + "\"],\"limit\":5}",
            "limit"),
        arguments("negative limit", "{\"action\":\"list\",\"limit\":-1}", "limit"),
        arguments("zero limit", "{\"action\":\"list\",\"limit\":0}", "limit"),
        arguments(
            "absurd limit", "{\"action\":\"replay\",\"all\":true,\"limit\":1000000}", "limit"),
        arguments("limit beyond a long", "{\"action\":\"list\",\"limit\":1e30}", "limit"),
        arguments("fractional limit", "{\"action\":\"list\",\"limit\":2.5}", "limit"),
        arguments("limit as a string", "{\"action\":\"list\",\"limit\":\"50\"}", "limit"),
        arguments(
            "discard without a reason",
            "{\"action\":\"discard\",\"ids\":[\"" + A + "\"]}",
            "reason"),
        arguments(
            "discard with a blank reason",
            "{\"action\":\"discard\",\"ids\":[\"" + A + "\"],\"reason\":\"  \"}",
            "reason"),
        arguments("discard without ids", "{\"action\":\"discard\",\"reason\":\"bad data\"}", "ids"),
        arguments(
            "discard by filter",
            "{\"action\":\"discard\",\"filter\":{\"errorCode\":\"X\"},\"reason\":\"x\"}",
            "filter"),
        arguments(
            "reason too long",
            "{\"action\":\"discard\",\"ids\":[\""
                + A
                + "\"],\"reason\":\""
                + "x".repeat(2001)
                + "\"}",
            "reason"),
        arguments(
            "typo in a top-level field",
            "{\"action\":\"replay\",\"ids\":[\"" + A + "\"],\"dryrun\":true}",
            "dryrun"),
        arguments(
            "typo in a filter field",
            "{\"action\":\"replay\",\"filter\":{\"evenType\":\"OrderPlaced\"}}",
            "filter.evenType"),
        arguments(
            "field of another action",
            "{\"action\":\"replay\",\"all\":true,\"cursor\":\"abc\"}",
            "cursor"),
        arguments(
            "filter not an object", "{\"action\":\"list\",\"filter\":\"OrderPlaced\"}", "filter"),
        arguments(
            "blank filter value",
            "{\"action\":\"list\",\"filter\":{\"eventType\":\"\"}}",
            "filter.eventType"),
        arguments(
            "bad date",
            "{\"action\":\"list\",\"filter\":{\"deadAtFrom\":\"yesterday\"}}",
            "filter.deadAtFrom"),
        arguments(
            "date without a zone offset",
            "{\"action\":\"list\",\"filter\":{\"deadAtFrom\":\"2026-03-01T00:00:00\"}}",
            "filter.deadAtFrom"),
        arguments(
            "impossible date",
            "{\"action\":\"list\",\"filter\":{\"deadAtTo\":\"2026-02-30T00:00:00Z\"}}",
            "filter.deadAtTo"),
        arguments(
            "from after to",
            "{\"action\":\"replay\",\"filter\":{\"deadAtFrom\":\"2026-03-02T00:00:00Z\","
                + "\"deadAtTo\":\"2026-03-01T00:00:00Z\"}}",
            "filter.deadAtTo"),
        arguments("bad cursor", "{\"action\":\"list\",\"cursor\":\"bm90LWEtY3Vyc29y\"}", "cursor"),
        arguments("cursor not a string", "{\"action\":\"list\",\"cursor\":5}", "cursor"),
        arguments(
            "bad destination",
            "{\"action\":\"replay\",\"ids\":[\"" + A + "\"],\"destination\":\"orders-quarantine\"}",
            "destination"),
        arguments(
            "an SQS queue ARN instead of its URL",
            "{\"action\":\"replay\",\"ids\":[\""
                + A
                + "\"],\"destination\":\"arn:aws:sqs:us-east-1:123456789012:q\"}",
            "destination"),
        arguments(
            "dryRun as a string",
            "{\"action\":\"replay\",\"ids\":[\"" + A + "\"],\"dryRun\":\"false\"}",
            "dryRun"),
        arguments(
            "dryRun as a number", "{\"action\":\"replay\",\"all\":true,\"dryRun\":0}", "dryRun"),
        arguments(
            "dryRun null",
            "{\"action\":\"replay\",\"ids\":[\"" + A + "\"],\"dryRun\":null}",
            "dryRun"),
        arguments(
            "audit filter field of the listing",
            "{\"action\":\"audit\",\"filter\":{\"errorCode\":\"NotFound\"}}",
            "filter.errorCode"),
        arguments(
            "audit filter typo",
            "{\"action\":\"audit\",\"filter\":{\"requestBy\":\"alice\"}}",
            "filter.requestBy"),
        arguments(
            "audit of an unknown action",
            "{\"action\":\"audit\",\"filter\":{\"action\":\"REPLAYED\"}}",
            "filter.action"),
        arguments(
            "audit of a malformed dead-letter id",
            "{\"action\":\"audit\",\"filter\":{\"deadLetterId\":\"order-1001\"}}",
            "filter.deadLetterId"),
        arguments(
            "audit dead-letter id not a string",
            "{\"action\":\"audit\",\"filter\":{\"deadLetterId\":7}}",
            "filter.deadLetterId"),
        arguments(
            "audit time without an offset",
            "{\"action\":\"audit\",\"filter\":{\"from\":\"2026-03-01T00:00\"}}",
            "filter.from"),
        arguments(
            "audit range backwards",
            "{\"action\":\"audit\",\"filter\":{\"from\":\"2026-03-02T00:00:00Z\","
                + "\"to\":\"2026-03-01T00:00:00Z\"}}",
            "filter.to"),
        arguments(
            "audit with a listing cursor",
            "{\"action\":\"audit\",\"cursor\":\""
                + new DeadLetterCursor(Instant.parse("2026-03-01T00:00:00Z"), UUID.fromString(A))
                    .encode()
                + "\"}",
            "cursor"),
        arguments(
            "listing with an audit cursor",
            "{\"action\":\"list\",\"cursor\":\"" + new AuditCursor(5).encode() + "\"}",
            "cursor"),
        arguments("audit limit too large", "{\"action\":\"audit\",\"limit\":1001}", "limit"),
        arguments(
            "audit with a field of replay",
            "{\"action\":\"audit\",\"ids\":[\"" + A + "\"]}",
            "ids"),
        arguments("audit with a dry run", "{\"action\":\"audit\",\"dryRun\":true}", "dryRun"),
        arguments(
            "requestedBy not a string",
            "{\"action\":\"list\",\"requestedBy\":{\"name\":\"al\"}}",
            "requestedBy"),
        arguments("grouping unknown", "{\"action\":\"list\",\"groupBy\":\"cause\"}", "groupBy"),
        arguments(
            "grouping with a filter",
            "{\"action\":\"list\",\"groupBy\":\"failure\",\"filter\":{\"eventType\":\"X\"}}",
            "filter"),
        arguments(
            "groups past their limit",
            "{\"action\":\"list\",\"groupBy\":\"failure\",\"limit\":101}",
            "limit"),
        arguments(
            "redrive without a group", "{\"action\":\"redrive\",\"ratePerSecond\":5}", "group"),
        arguments(
            "redrive of a group that is no fingerprint",
            "{\"action\":\"redrive\",\"group\":\"NO_DESTINATION\",\"ratePerSecond\":5}",
            "group"),
        arguments(
            "redrive without a rate",
            "{\"action\":\"redrive\",\"group\":\"" + GROUP + "\"}",
            "ratePerSecond"),
        arguments(
            "redrive at no rate",
            "{\"action\":\"redrive\",\"group\":\"" + GROUP + "\",\"ratePerSecond\":0}",
            "ratePerSecond"),
        arguments(
            "redrive with a canary that is no id",
            "{\"action\":\"redrive\",\"group\":\""
                + GROUP
                + "\",\"ratePerSecond\":5,\"canary\":\"first\"}",
            "canary"),
        arguments(
            "redrive waiting too long for its canary",
            "{\"action\":\"redrive\",\"group\":\""
                + GROUP
                + "\",\"ratePerSecond\":5,\"canaryTimeoutSeconds\":601}",
            "canaryTimeoutSeconds"),
        arguments(
            "stop with a rate",
            "{\"action\":\"stopRedrive\",\"group\":\"" + GROUP + "\",\"ratePerSecond\":5}",
            "ratePerSecond"),
        arguments(
            "resume past its limit",
            "{\"action\":\"resumeRedrive\",\"group\":\""
                + GROUP
                + "\",\"ratePerSecond\":5,\"limit\":1001}",
            "limit"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedRequests")
  void malformedRequest_isRefusedNamingTheField_andChangesNothing(
      String description, String body, String field) throws Exception {
    assertThatThrownBy(() -> reprocessor.invoke(body))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              JsonNode error = parse(e.getMessage());
              assertThat(error.path("error").asText()).isEqualTo("InvalidRequest");
              assertThat(error.path("field").asText()).isEqualTo(field);
              assertThat(error.path("message").asText()).startsWith(field + ": ");
              assertThat(error.path("nothingChanged").asBoolean()).isTrue();
            });
    assertThat(reprocessor.rows.snapshot()).isEqualTo(before);
  }

  @Test
  void malformedRequests_coverAtLeastFifteenCases() {
    assertThat(malformedRequests().count()).isGreaterThanOrEqualTo(15);
  }

  @Test
  void unknownField_suggestsTheFieldMeant_andListsTheValidOnes() {
    assertThatThrownBy(
            () ->
                reprocessor.invoke(
                    "{\"action\":\"replay\",\"filter\":{\"evenType\":\"OrderPlaced\"}}"))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e ->
                assertThat(e.problem())
                    .contains("did you mean 'eventType'?")
                    .contains("aggregateId, aggregateType, deadAtFrom, deadAtTo"));
  }

  @Test
  void badJson_saysWhere() {
    assertThatThrownBy(() -> reprocessor.invoke("{\"action\":\"list\",\n \"limit\": }"))
        .isInstanceOfSatisfying(
            InvalidRequestException.class, e -> assertThat(e.problem()).contains("line 2"));
  }

  @Test
  void refusedRequest_isLoggedAsAWarning_withTheField() {
    List<JsonNode> before = new ArrayList<>(reprocessor.logs());

    assertThatThrownBy(() -> reprocessor.invoke("{\"action\":\"replai\"}"))
        .isInstanceOf(InvalidRequestException.class);

    JsonNode last = reprocessor.logs().get(before.size());
    assertThat(last.path("level").asText()).isEqualTo("WARN");
    assertThat(last.path("field").asText()).isEqualTo("action");
  }

  private static JsonNode parse(String json) {
    try {
      return JsonSupport.mapper().readTree(json);
    } catch (Exception e) {
      throw new AssertionError("error message is not JSON: " + json, e);
    }
  }
}
