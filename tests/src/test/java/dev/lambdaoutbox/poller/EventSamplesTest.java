package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.poller.internal.failure.Failure;
import dev.lambdaoutbox.poller.internal.failure.FailureClassifier;
import dev.lambdaoutbox.reprocessor.internal.request.RequestParser;
import dev.lambdaoutbox.store.OutboxStore;
import dev.lambdaoutbox.testing.Backend;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The sample payloads in {@code events/} are the operator's first step, so they must work as
 * shipped: each reprocessor request is one the reprocessor's own parser accepts, each error code
 * they filter on is one the poller records (on a dead letter, or on the rows waiting for a
 * destination it found misconfigured), and {@code events/list.json}, sent after a real
 * misconfiguration, shows the rows it left waiting.
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
  void everyErrorCodeInTheSamples_isOneThePollerRecords() throws IOException {
    List<String> codes = errorCodes();
    assertThat(codes).isNotEmpty();
    for (String code : codes) {
      boolean deadLetters = FailureClassifier.isMessageLevel(code);
      boolean parksTheDestination =
          FailureClassifier.noneWentThrough(List.of(FailureClassifier.entry(code, code, true)))
              == Failure.Scope.DESTINATION_MISCONFIGURED;
      assertThat(deadLetters || parksTheDestination)
          .as("'%s': the poller dead-letters a row with it, or parks its destination", code)
          .isTrue();
    }
  }

  /**
   * The whole first step of an outage: events routed to a topic nobody created wait in the outbox
   * (the poller parks the topic as misconfigured, with the code SNS gave), and the packaged
   * reprocessor, sent {@code events/list.json} unchanged, shows them under {@code waiting}. Over
   * each store a packaged function reaches.
   */
  @ParameterizedTest
  @EnumSource(
      value = Backend.class,
      names = {"POSTGRES_JDBC", "MARIADB_JDBC", "DATA_API"})
  void listSample_showsTheRowsARealMisconfigurationLeftWaiting(Backend backend) throws Exception {
    JsonNode filter = samples().get("list.json").path("filter");
    String eventType = filter.path("eventType").asText();
    try (PollerTestBed bed = new PollerTestBed("samples", backend.database())) {
      String existing = bed.topic("existing");
      String missing = existing.substring(0, existing.lastIndexOf(':') + 1) + bed.name("missing");
      PollerConfig config =
          bed.config("OUTBOX_ROUTES", "{\"" + eventType + "\":\"" + missing + "\"}");
      List<AutoCloseable> resources = new ArrayList<>();
      try {
        OutboxStore store =
            OutboxStore.builder(backend.executor(bed.tables, resources)).tables(bed.tables).build();
        List<UUID> waiting =
            bed.append(
                PollerTestBed.event(eventType, "order-7").build(),
                PollerTestBed.event(eventType, "order-8").build());
        assertThat(bed.invoke(bed.handler(config, store, bed.publisher(config))).deferred())
            .isEqualTo(2);
        assertThat(bed.outboxRow(waiting.get(0)).get("last_error_code"))
            .as("the code the poller really writes is the one the sample filters on")
            .isEqualTo(filter.path("errorCode").asText());
      } finally {
        Backend.close(resources);
      }

      Map<String, String> env = new HashMap<>(backend.functionEnvironment(bed.tables));
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
        JsonNode destination = report.path("waiting").path("destinations").get(0);
        assertThat(destination.path("destination").asText()).isEqualTo(missing);
        assertThat(destination.path("state").asText()).isEqualTo("MISCONFIGURED");
        assertThat(destination.path("rows").asLong()).isEqualTo(2);
        assertThat(report.path("waiting").path("rows").asLong()).isEqualTo(2);
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
