package dev.lambdaoutbox.poller.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.store.model.Backlog;
import dev.lambdaoutbox.store.model.Completion;
import dev.lambdaoutbox.store.model.CompletionReport;
import dev.lambdaoutbox.store.model.DeliveryOutcome;
import dev.lambdaoutbox.store.model.OutboxMessage;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class InvocationMetricsTest {
  private static final Instant PUBLISHED_AT = Instant.parse("2026-01-02T03:04:05Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void publishLatencies_countOnlyRowsRecordedAsPublished_fromCreatedAtToPublish() {
    Map<UUID, OutboxMessage> rows = new LinkedHashMap<>();
    OutboxMessage old = row(rows, PUBLISHED_AT.minusMillis(1_500));
    OutboxMessage retried = row(rows, PUBLISHED_AT.minusSeconds(60));
    OutboxMessage lost = row(rows, PUBLISHED_AT.minusSeconds(60));
    OutboxMessage fresh = row(rows, PUBLISHED_AT.minusMillis(7));
    CompletionReport report =
        new CompletionReport(
            List.of(
                Completion.applied(new DeliveryOutcome.Published(old.id())),
                Completion.applied(new DeliveryOutcome.Retry(retried.id(), "X", "x", PUBLISHED_AT)),
                Completion.gone(new DeliveryOutcome.Published(lost.id())),
                Completion.applied(new DeliveryOutcome.Published(fresh.id()))));

    assertThat(PublishLatencies.of(rows, report, PUBLISHED_AT)).containsExactly(1_500, 7);
  }

  @Test
  void publishLatency_ofARowStampedByAClockAheadOfThePoller_isZero() {
    Map<UUID, OutboxMessage> rows = new LinkedHashMap<>();
    OutboxMessage ahead = row(rows, PUBLISHED_AT.plusMillis(40));
    CompletionReport report =
        new CompletionReport(
            List.of(Completion.applied(new DeliveryOutcome.Published(ahead.id()))));

    assertThat(PublishLatencies.of(rows, report, PUBLISHED_AT)).containsExactly(0);
  }

  @Test
  void emit_carriesEachPublishedRowsLatency_beside_theCountsAndGauges() throws Exception {
    InvocationTotals totals = new InvocationTotals();
    totals.add(published(3), 0, new long[] {12, 340, 5});
    totals.add(published(1), 0, new long[] {61_000});

    List<JsonNode> lines = emit(totals);

    assertThat(lines).hasSize(1);
    JsonNode line = lines.get(0);
    assertThat(line.get("Published").asInt()).isEqualTo(4);
    assertThat(line.get("PublishLatencyMs").toString()).isEqualTo("[12,340,5,61000]");
    assertThat(metricUnits(line)).containsEntry("PublishLatencyMs", "Milliseconds");
    assertThat(line.get("OldestUnpublishedAgeSeconds").asDouble()).isEqualTo(2.0);
  }

  @Test
  void emit_withNothingPublished_leavesTheLatencyOut() throws Exception {
    List<JsonNode> lines = emit(new InvocationTotals());

    assertThat(lines).hasSize(1);
    assertThat(lines.get(0).has("PublishLatencyMs")).isFalse();
    assertThat(metricUnits(lines.get(0))).doesNotContainKey("PublishLatencyMs");
  }

  @Test
  void emit_overOneHundredPublished_writesEveryLatencyOnce_inFurtherLines() throws Exception {
    InvocationTotals totals = new InvocationTotals();
    long[] latencies = new long[230];
    for (int i = 0; i < latencies.length; i++) {
      latencies[i] = 1_000 + i;
    }
    totals.add(published(230), 0, latencies);

    List<JsonNode> lines = emit(totals);

    assertThat(lines).hasSize(3);
    List<Long> carried = new ArrayList<>();
    lines.forEach(l -> l.get("PublishLatencyMs").forEach(v -> carried.add(v.asLong())));
    assertThat(carried).hasSize(230).startsWith(1_000L).endsWith(1_229L).doesNotHaveDuplicates();
    assertThat(lines.get(0).get("Published").asInt()).isEqualTo(230);
    assertThat(metricUnits(lines.get(2))).containsOnlyKeys("PublishLatencyMs");
    assertThat(lines.get(2).get("requestId").asText()).isEqualTo("r-1");
  }

  private static List<JsonNode> emit(InvocationTotals totals) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    EmfMetrics metrics =
        new EmfMetrics(
            "LambdaOutbox",
            "outbox-poller",
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            Clock.systemUTC());
    Backlog backlog = new Backlog(Duration.ofSeconds(2), 0, 0, 0, 0, 0, 0, 0);
    new InvocationMetrics(metrics).emit(totals, backlog, 80, "r-1", "drained");
    List<JsonNode> lines = new ArrayList<>();
    for (String text : bytes.toString(StandardCharsets.UTF_8).lines().toList()) {
      lines.add(JSON.readTree(text));
    }
    return lines;
  }

  private static Map<String, String> metricUnits(JsonNode line) {
    Map<String, String> units = new LinkedHashMap<>();
    line.at("/_aws/CloudWatchMetrics/0/Metrics")
        .forEach(m -> units.put(m.get("Name").asText(), m.get("Unit").asText()));
    return units;
  }

  private static CompletionReport published(int rows) {
    List<Completion> completions = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      completions.add(Completion.applied(new DeliveryOutcome.Published(UUID.randomUUID())));
    }
    return new CompletionReport(completions);
  }

  private static OutboxMessage row(Map<UUID, OutboxMessage> rows, Instant createdAt) {
    OutboxMessage row =
        new OutboxMessage(
            UUID.randomUUID(),
            "reservation",
            "r-1",
            "reservation.created",
            "{}",
            Map.of(),
            null,
            null,
            createdAt,
            createdAt,
            0,
            0,
            null,
            2);
    rows.put(row.id(), row);
    return row;
  }
}
