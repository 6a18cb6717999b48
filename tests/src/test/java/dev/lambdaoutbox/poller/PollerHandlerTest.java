package dev.lambdaoutbox.poller;

import static dev.lambdaoutbox.poller.PollerTestBed.attribute;
import static dev.lambdaoutbox.poller.PollerTestBed.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.testing.FakeLambdaContext;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The handler as Lambda builds it: from environment variables alone (the SDK finds the endpoint in
 * {@code AWS_ENDPOINT_URL} itself), and failing initialisation with the variable's name when one is
 * wrong.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PollerHandlerTest {
  private PollerTestBed bed;

  @BeforeAll
  void start() {
    bed = new PollerTestBed("handler");
  }

  @AfterAll
  void stop() throws Exception {
    bed.close();
  }

  @Test
  void environmentOnly_publishes_andReturnsTheSummaryAsJson() throws Exception {
    bed.reset();
    String queue = bed.queue("env");
    OutboxWriter systemClockWriter = OutboxWriter.builder().tables(bed.tables).build();
    List<UUID> ids =
        bed.append(
            systemClockWriter,
            List.of(event("order.created", "o-1").build(), event("order.created", "o-2").build()));

    PollerHandler handler = new PollerHandler(bed.env("OUTBOX_DEFAULT_DESTINATION", queue));
    JsonNode json = invoke(handler);

    assertThat(json.get("claimed").asInt()).isEqualTo(2);
    assertThat(json.get("published").asInt()).isEqualTo(2);
    assertThat(json.get("retried").asInt()).isZero();
    assertThat(json.get("deadLettered").asInt()).isZero();
    assertThat(json.get("durationMs").isIntegralNumber()).isTrue();
    assertThat(json.get("stoppedBecause").asText()).isEqualTo("drained");
    assertThat(bed.receive(queue, 2))
        .extracting(m -> attribute(m, "eventId"))
        .containsExactlyInAnyOrder(ids.get(0).toString(), ids.get(1).toString());

    JsonNode warm = invoke(handler);
    assertThat(warm.get("claimed").asInt()).isZero();
  }

  /** Lambda's entry point, fed the sample scheduled event; the summary it wrote. */
  private static JsonNode invoke(PollerHandler handler) throws IOException {
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    try (InputStream event =
        Files.newInputStream(
            PackagedFunction.projectRoot().resolve("events/scheduled-event.json"))) {
      handler.handleRequest(
          event, output, new FakeLambdaContext("outbox-poller", Duration.ofSeconds(30)));
    }
    return PollerTestBed.JSON.readTree(output.toByteArray());
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of("OUTBOX_JDBC_URL", null, "is not set"),
        Arguments.of("OUTBOX_JDBC_URL", "jdbc:oracle:thin:@db", "not a PostgreSQL or MySQL"),
        Arguments.of("OUTBOX_DB_PASSWORD", null, "is not set"),
        Arguments.of("OUTBOX_STORE", "dynamodb", "not a known store"),
        Arguments.of("OUTBOX_BATCH_SIZE", "ten", "'ten' is not a whole number"),
        Arguments.of("OUTBOX_BATCH_SIZE", "5000", "out of range"),
        Arguments.of("OUTBOX_MAX_RETRIES", "many", "not a whole number"),
        Arguments.of("OUTBOX_ROUTES", "{reservation.*: topic}", "not valid JSON"),
        Arguments.of("OUTBOX_ROUTES", "{\"a.*\":\"arn:aws:sns:us-east-1:1:t\"}", "route 'a.*'"),
        Arguments.of("OUTBOX_DEFAULT_DESTINATION", "my-queue", "none of an SNS topic ARN"),
        Arguments.of("OUTBOX_LEASE_SECONDS", "11", "twice"),
        Arguments.of("OUTBOX_POLL_INTERVAL_MS", "-5", "out of range"),
        Arguments.of("OUTBOX_PARKING_CHUNK_SIZE", "50", "out of range"),
        Arguments.of("OUTBOX_PARKING_CHUNK_SIZE", "100000", "out of range"),
        Arguments.of("OUTBOX_PROBE_INTERVAL_MIN_MS", "500", "out of range"),
        Arguments.of("OUTBOX_PROBE_INTERVAL_MAX_MS", "soon", "not a whole number"),
        Arguments.of("OUTBOX_LOG_LEVEL", "verbose", "not a log level"),
        Arguments.of("OUTBOX_TABLE_PREFIX", "bad-prefix", "not a valid SQL identifier"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("malformed")
  void malformedConfiguration_failsInitialisation_namingTheVariable(
      String variable, String value, String why) {
    Map<String, String> env =
        bed.env(
            "OUTBOX_DEFAULT_DESTINATION",
            "https://sqs.us-east-1.amazonaws.com/123456789012/q",
            variable,
            value);

    assertThatThrownBy(() -> new PollerHandler(env))
        .isInstanceOfSatisfying(
            ConfigurationException.class, e -> assertThat(e.variable()).isEqualTo(variable))
        .hasMessageStartingWith(variable + ": ")
        .hasMessageContaining(why);
  }

  @Test
  void scheduledEventSample_isAValidScheduledEvent() throws Exception {
    var sample =
        PollerTestBed.JSON.readTree(
            java.nio.file.Files.readString(
                java.nio.file.Path.of("..", "events", "scheduled-event.json")));

    assertThat(sample.get("detail-type").asText()).isEqualTo("Scheduled Event");
    assertThat(sample.get("source").asText()).isEqualTo("aws.events");
    assertThat(sample.get("resources").get(0).asText()).startsWith("arn:aws:events:");
  }
}
