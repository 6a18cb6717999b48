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
import java.util.LinkedHashMap;
import java.util.Map;
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
