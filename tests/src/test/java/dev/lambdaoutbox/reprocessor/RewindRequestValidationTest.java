package dev.lambdaoutbox.reprocessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest.RewindRequest;
import dev.lambdaoutbox.reprocessor.internal.request.RequestParser;
import dev.lambdaoutbox.store.model.rewind.RewindCursor;
import dev.lambdaoutbox.store.model.rewind.RewindPacing;
import dev.lambdaoutbox.store.model.rewind.RewindRange;
import dev.lambdaoutbox.store.rewind.RewindStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A rewind request is read strictly: its range, destination and rate are required, the range is
 * bounded, and a cursor must be one of the same rewind; each refusal names the field.
 */
class RewindRequestValidationTest {
  private static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/backfill";
  private static final String FILTER =
      "\"filter\":{\"sentFrom\":\"2026-03-01T00:00:00Z\",\"sentTo\":\"2026-03-01T01:00:00Z\"}";

  private static RewindRequest parse(String fields) {
    return (RewindRequest)
        RequestParser.parse(
            ("{\"action\":\"rewind\"," + fields + "}").getBytes(StandardCharsets.UTF_8));
  }

  private static void refused(String fields, String field, String problem) {
    assertThatThrownBy(() -> parse(fields))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.problem()).contains(problem);
            });
  }

  @Test
  void aRewind_isADryRunUnlessTold_withTheDefaultStep() {
    RewindRequest r = parse(FILTER + ",\"destination\":\"" + QUEUE + "\",\"ratePerSecond\":5");

    assertThat(r.dryRun()).isTrue();
    assertThat(r.limit()).isEqualTo(500);
    assertThat(r.pacing().eventsPerSecond()).isEqualTo(5);
    assertThat(r.range().sentFrom()).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(r.cursor()).isNull();
  }

  @Test
  void whatARewindNeeds_isRequired_eachNamed() {
    refused("\"destination\":\"" + QUEUE + "\",\"ratePerSecond\":5", "filter", "is required");
    refused(
        "\"filter\":{\"sentFrom\":\"2026-03-01T00:00:00Z\"},\"destination\":\""
            + QUEUE
            + "\",\"ratePerSecond\":5",
        "filter.sentTo",
        "is required");
    refused(FILTER + ",\"ratePerSecond\":5", "destination", "is required");
    refused(FILTER + ",\"destination\":\"" + QUEUE + "\"", "ratePerSecond", "is required");
    refused(
        FILTER + ",\"destination\":\"" + QUEUE + "\",\"ratePerSecond\":0",
        "ratePerSecond",
        "out of range");
    refused(FILTER + ",\"destination\":\"not-a-queue\",\"ratePerSecond\":5", "destination", "");
  }

  @Test
  void theRange_isBounded_andRunsForward() {
    refused(
        "\"filter\":{\"sentFrom\":\"2026-03-01T00:00:00Z\",\"sentTo\":\"2026-05-01T00:00:00Z\"},"
            + "\"destination\":\""
            + QUEUE
            + "\",\"ratePerSecond\":5",
        "filter.sentTo",
        "at most 31 days");
    refused(
        "\"filter\":{\"sentFrom\":\"2026-03-01T01:00:00Z\",\"sentTo\":\"2026-03-01T00:00:00Z\"},"
            + "\"destination\":\""
            + QUEUE
            + "\",\"ratePerSecond\":5",
        "filter.sentTo",
        "is not after");
    refused(
        "\"filter\":{\"sentFrom\":\"2026-03-01T00:00:00Z\",\"sentTo\":\"2026-03-01T01:00:00Z\","
            + "\"deadAtFrom\":\"2026-03-01T00:00:00Z\"},\"destination\":\""
            + QUEUE
            + "\",\"ratePerSecond\":5",
        "filter.deadAtFrom",
        "");
  }

  @Test
  void aCursor_mustBeOneOfTheSameRewind_andOnlyForARealStep() {
    RewindRange range =
        new RewindRange(
            Instant.parse("2026-03-01T00:00:00Z"),
            Instant.parse("2026-03-01T01:00:00Z"),
            null,
            null,
            null);
    String mine =
        new RewindCursor(
                UUID.randomUUID(),
                range.sentFrom(),
                RewindCursor.NO_ID,
                range.sentTo(),
                0,
                RewindStore.fingerprint(range, QUEUE, new RewindPacing(5)))
            .encode();
    String base = FILTER + ",\"destination\":\"" + QUEUE + "\",\"dryRun\":false,\"cursor\":\"";

    assertThat(parse(base + mine + "\",\"ratePerSecond\":5").cursor()).isNotNull();
    refused(base + mine + "\",\"ratePerSecond\":6", "cursor", "another filter, destination");
    refused(base + "bm90LW91cnM\",\"ratePerSecond\":5", "cursor", "is not a cursor");
    refused(
        FILTER
            + ",\"destination\":\""
            + QUEUE
            + "\",\"ratePerSecond\":5,\"cursor\":\""
            + mine
            + "\"",
        "cursor",
        "dry run");
  }

  @Test
  void fieldsOfOtherActions_areRefused() {
    refused(
        FILTER + ",\"destination\":\"" + QUEUE + "\",\"ratePerSecond\":5,\"waitingFor\":\"x\"",
        "waitingFor",
        "does not apply to action 'rewind'");
  }
}
