package dev.lambdaoutbox.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class EmfMetricsTest {
  @Test
  void emit_writesOneEmfLineWithServiceDimensionAndEveryMetric() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);
    EmfMetrics metrics =
        new EmfMetrics(
            "LambdaOutbox", "poller", new PrintStream(bytes, true, StandardCharsets.UTF_8), clock);

    metrics
        .batch()
        .count("Claimed", 7)
        .metric("DurationMs", 12.5, MetricUnit.MILLISECONDS)
        .property("requestId", "r-1")
        .emit();

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out.lines()).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(out);
    JsonNode directive = line.at("/_aws/CloudWatchMetrics/0");
    assertThat(line.at("/_aws/Timestamp").asLong()).isEqualTo(clock.millis());
    assertThat(directive.get("Namespace").asText()).isEqualTo("LambdaOutbox");
    assertThat(directive.at("/Dimensions/0/0").asText()).isEqualTo("Service");
    assertThat(directive.at("/Metrics/0/Name").asText()).isEqualTo("Claimed");
    assertThat(directive.at("/Metrics/1/Unit").asText()).isEqualTo("Milliseconds");
    assertThat(line.get("Service").asText()).isEqualTo("poller");
    assertThat(line.get("Claimed").asLong()).isEqualTo(7);
    assertThat(line.get("DurationMs").asDouble()).isEqualTo(12.5);
    assertThat(line.get("requestId").asText()).isEqualTo("r-1");
  }

  @Test
  void render_isTheLineJacksonWrote() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);
    EmfMetrics metrics = new EmfMetrics("LambdaOutbox", "poller", System.out, clock);

    String line =
        metrics
            .batch()
            .count("Claimed", 7)
            .metric("AgeSeconds", 0.25, MetricUnit.SECONDS)
            .property("capped", true)
            .property("requestId", "r-\"1\"")
            .render();

    assertThat(line)
        .isEqualTo(
            "{\"_aws\":{\"Timestamp\":1767323045000,\"CloudWatchMetrics\":[{\"Namespace\":"
                + "\"LambdaOutbox\",\"Dimensions\":[[\"Service\"]],\"Metrics\":[{\"Name\":"
                + "\"Claimed\",\"Unit\":\"Count\"},{\"Name\":\"AgeSeconds\",\"Unit\":"
                + "\"Seconds\"}]}]},\"Service\":\"poller\",\"capped\":true,\"requestId\":"
                + "\"r-\\\"1\\\"\",\"Claimed\":7,\"AgeSeconds\":0.25}");
  }

  @Test
  void values_upToOneHundred_areOneArrayInTheLineBesideTheOtherMetrics() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    EmfMetrics metrics = new EmfMetrics("LambdaOutbox", "poller", print(bytes), Clock.systemUTC());

    metrics
        .batch()
        .count("Published", 3)
        .values("PublishLatencyMs", new long[] {5, 1200, 30}, MetricUnit.MILLISECONDS)
        .property("requestId", "r-1")
        .emit();

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out.lines()).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(out);
    assertThat(line.at("/_aws/CloudWatchMetrics/0/Metrics/1/Name").asText())
        .isEqualTo("PublishLatencyMs");
    assertThat(line.at("/_aws/CloudWatchMetrics/0/Metrics/1/Unit").asText())
        .isEqualTo("Milliseconds");
    assertThat(line.get("PublishLatencyMs").toString()).isEqualTo("[5,1200,30]");
    assertThat(line.get("Published").asLong()).isEqualTo(3);
  }

  @Test
  void values_overOneHundred_goOnInFurtherLinesOfAtMostOneHundred_everyValueOnce()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    EmfMetrics metrics = new EmfMetrics("LambdaOutbox", "poller", print(bytes), Clock.systemUTC());
    long[] measured = new long[250];
    for (int i = 0; i < measured.length; i++) {
      measured[i] = i;
    }

    metrics
        .batch()
        .count("Published", 250)
        .values("PublishLatencyMs", measured, MetricUnit.MILLISECONDS)
        .property("requestId", "r-1")
        .emit();

    List<JsonNode> lines = new ArrayList<>();
    for (String text : bytes.toString(StandardCharsets.UTF_8).lines().toList()) {
      lines.add(new ObjectMapper().readTree(text));
    }
    assertThat(lines).hasSize(3);
    assertThat(lines)
        .extracting(l -> l.get("PublishLatencyMs").size())
        .containsExactly(100, 100, 50);
    List<Long> all = new ArrayList<>();
    lines.forEach(l -> l.get("PublishLatencyMs").forEach(v -> all.add(v.asLong())));
    assertThat(all).containsExactlyElementsOf(LongStream.range(0, 250).boxed().toList());
    assertThat(lines.get(0).get("Published").asLong()).isEqualTo(250);
    for (JsonNode more : lines.subList(1, 3)) {
      // Counted once: a further line carries no other metric, so a sum over lines stays true.
      assertThat(more.has("Published")).isFalse();
      assertThat(more.at("/_aws/CloudWatchMetrics/0/Metrics")).hasSize(1);
      assertThat(more.at("/_aws/CloudWatchMetrics/0/Dimensions/0/0").asText()).isEqualTo("Service");
      assertThat(more.get("Service").asText()).isEqualTo("poller");
      assertThat(more.get("requestId").asText()).isEqualTo("r-1");
    }
  }

  @Test
  void values_none_leaveTheMetricOut() {
    EmfMetrics metrics = new EmfMetrics("LambdaOutbox", "poller", System.out, Clock.systemUTC());

    List<String> lines =
        metrics
            .batch()
            .count("Published", 0)
            .values("PublishLatencyMs", new long[0], MetricUnit.MILLISECONDS)
            .lines();

    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).doesNotContain("PublishLatencyMs").contains("\"Published\":0");
  }

  @Test
  void jsonLogger_writesTheLineJacksonWrote_fieldsNamedLikeStandardOnesReplaceThemInPlace() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05.120Z"), ZoneOffset.UTC);
    JsonLogger log = logger(JsonLogger.Level.DEBUG, bytes, clock);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("eventId", "e-1");
    fields.put("message", "overridden\ttab");
    fields.put("attempts", 3L);

    log.info("original", fields);

    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"timestamp\":\"2026-01-02T03:04:05.120Z\",\"level\":\"INFO\",\"service\":"
                + "\"poller\",\"logger\":\"dev.lambdaoutbox.telemetry.EmfMetricsTest\","
                + "\"message\":\"overridden\\ttab\",\"eventId\":\"e-1\",\"attempts\":3}"
                + System.lineSeparator());
  }

  @Test
  void jsonLogger_dropsLinesBelowThresholdAndKeepsFields() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    JsonLogger log = logger(JsonLogger.Level.INFO, bytes, Clock.systemUTC());

    log.debug("hidden", java.util.Map.of());
    log.error(
        "dead-lettered",
        java.util.Map.of("eventId", "e-1", "attempts", 3),
        new IllegalStateException("boom"));

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out.lines()).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(out);
    assertThat(line.get("level").asText()).isEqualTo("ERROR");
    assertThat(line.get("eventId").asText()).isEqualTo("e-1");
    assertThat(line.get("attempts").asInt()).isEqualTo(3);
    assertThat(line.get("errorMessage").asText()).isEqualTo("boom");
  }

  private static PrintStream print(ByteArrayOutputStream to) {
    return new PrintStream(to, true, StandardCharsets.UTF_8);
  }

  private static JsonLogger logger(
      JsonLogger.Level threshold, ByteArrayOutputStream to, Clock clock) {
    return new JsonLogger(
        "poller",
        EmfMetricsTest.class,
        threshold,
        new PrintStream(to, true, StandardCharsets.UTF_8),
        clock);
  }
}
