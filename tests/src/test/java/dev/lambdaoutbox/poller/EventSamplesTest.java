package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.poller.internal.FailureClassifier;
import dev.lambdaoutbox.reprocessor.internal.RequestParser;
import dev.lambdaoutbox.testing.LambdaRuntimeEmulator;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The sample payloads in {@code events/} are the operator's first step, so they must work as
 * shipped: each reprocessor request is one the reprocessor's own parser accepts, each error code
 * they filter on is one the poller records for a dead letter, and {@code events/list.json} finds
 * the dead letter the poller writes when a topic does not exist.
 */
class EventSamplesTest {
  private static final Path EVENTS = PackagedFunction.projectRoot().resolve("events");

  /** File name to its JSON, for every sample. */
  private static Map<String, JsonNode> samples() throws IOException {
    Map<String, JsonNode> samples = new TreeMap<>();
    try (Stream<Path> files = Files.list(EVENTS)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        samples.put(file.getFileName().toString(), PollerTestBed.JSON.readTree(file.toFile()));
      }
    }
    assertThat(samples).containsKeys("list.json", "scheduled-event.json");
    return samples;
  }

  @Test
  void everyReprocessorSample_isARequestTheReprocessorsParserAccepts() throws IOException {
    samples()
        .forEach(
            (name, json) -> {
              if (json.has("action")) {
                assertThatCode(() -> RequestParser.parse(json.toString().getBytes()))
                    .as(name)
                    .doesNotThrowAnyException();
              } else {
                assertThat(json.path("source").asText()).as(name).isEqualTo("aws.events");
              }
            });
  }

  @Test
  void everyErrorCodeInTheSamples_isOneThePoller_deadLettersWith() throws IOException {
    List<String> codes = errorCodes();
    assertThat(codes).isNotEmpty();
    for (String code : codes) {
      assertThat(FailureClassifier.isMessageLevel(code))
          .as("'%s': the classifier dead-letters it at first sight", code)
          .isTrue();
    }
  }

  /**
   * The whole first step: the poller dead-letters an event that nothing routes anywhere (no
   * destination of its own, no route, no default destination), and the packaged reprocessor, sent
   * {@code events/list.json} unchanged, lists it. The sample's time range holds the test bed's
   * clock ({@link PollerTestBed#T0}).
   */
  @Test
  void listSample_findsTheDeadLetterThePollerWritesForAnUnroutedEvent() throws Exception {
    JsonNode list = samples().get("list.json");
    String eventType = list.path("filter").path("eventType").asText();
    try (PollerTestBed bed = new PollerTestBed("samples")) {
      UUID lost = bed.append(PollerTestBed.event(eventType, "order-7").build()).get(0);
      bed.invoke(bed.handler(bed.config()));
      assertThat(bed.deadLetter(lost).get("error_code")).isIn(errorCodes().toArray());

      Map<String, String> env = new HashMap<>(bed.env());
      env.keySet().removeIf(k -> !k.startsWith("OUTBOX_DB_") && !k.startsWith("OUTBOX_JDBC"));
      env.put("OUTBOX_TABLE_PREFIX", bed.tables.prefix());
      try (LambdaRuntimeEmulator runtime = new LambdaRuntimeEmulator();
          PackagedFunction reprocessor =
              PackagedFunction.start(
                  OutboxFunction.REPROCESSOR.module(),
                  OutboxFunction.REPROCESSOR.handler(),
                  env,
                  runtime)) {
        LambdaRuntimeEmulator.Result result =
            runtime.invoke(Files.readString(EVENTS.resolve("list.json")), Duration.ofSeconds(90));
        assertThat(result.failed()).as(result.body()).isFalse();
        JsonNode report = PollerTestBed.JSON.readTree(result.body());
        assertThat(report.path("deadLetters").get(0).path("id").asText())
            .isEqualTo(lost.toString());
        assertThat(report.path("count").asInt()).isEqualTo(1);
      }
    }
  }

  /** Every {@code errorCode} field anywhere in the samples. */
  private static List<String> errorCodes() throws IOException {
    List<String> codes = new ArrayList<>();
    for (JsonNode json : samples().values()) {
      json.findValues("errorCode").forEach(code -> codes.add(code.asText()));
    }
    return codes;
  }
}
