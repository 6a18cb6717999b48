package dev.lambdaoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The packaged poller keeps its connections to the broker: the jar in a fresh JVM (the JDK reads
 * {@code http.maxConnections} once per JVM), 8 calls in flight, draining 3,000 rows (300 batch
 * calls) over HTTPS, as to AWS, into the broker stand-in, which counts the connections the calls
 * came over. The JDK alone keeps 5 idle connections per host, so each claim's wave of 8 calls would
 * close 3 and the next wave open them again, a TLS handshake each; a value the user sets in {@code
 * JAVA_TOOL_OPTIONS} stands, and shows the difference.
 */
class PackagedPollerConnectionReuseTest {
  private static final int ROWS = 3_000;
  private static final int IN_FLIGHT = 8;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void eightCallsInFlight_reuseEightConnections_throughAWholeDrain() throws Exception {
    Drain drain = drain("");

    assertThat(drain.calls()).as("batch calls of 10").isGreaterThanOrEqualTo(ROWS / 10);
    assertThat(drain.connections())
        .as("connections opened for %d calls, %d in flight", drain.calls(), IN_FLIGHT)
        .isBetween(1L, (long) IN_FLIGHT);
  }

  @Test
  void theUsersOwnHttpMaxConnections_stands_andTheCallsAboveItReconnect() throws Exception {
    Drain drain = drain("-Dhttp.maxConnections=2");

    assertThat(drain.connections())
        .as("connections opened for %d calls, 2 kept", drain.calls())
        .isGreaterThan(3L * IN_FLIGHT);
  }

  private record Drain(long calls, long connections) {}

  private static Drain drain(String toolOptions) throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    OutboxTables tables = db.createTables("reuse");
    try (BrokerStandInProcess broker =
        BrokerStandInProcess.start(Duration.ofMillis(5), Duration.ofMillis(10), true)) {
      assertThat(broker.aws().endpoint().getScheme()).isEqualTo("https");
      Map<String, String> env = PackagedFunction.testBedEnvironment(db, tables, broker.aws());
      env.put("OUTBOX_DEFAULT_DESTINATION", broker.newDestination());
      env.put("OUTBOX_PUBLISH_CONCURRENCY", Integer.toString(IN_FLIGHT));
      env.put("OUTBOX_LOG_LEVEL", "WARN");
      env.put("JAVA_TOOL_OPTIONS", (broker.clientToolOptions() + " " + toolOptions).strip());
      try (PackagedPollers poller =
          new PackagedPollers(
              db,
              tables,
              env,
              ColdStartBenchmark.functionJava(),
              ColdStartBenchmark.LAMBDA_JVM_OPTIONS,
              1,
              TIMEOUT,
              TIMEOUT)) {
        poller.load(ROWS);
        BrokerStandInProcess.Stats before = broker.stats();
        List<JsonNode> answers = poller.drainEach(1);
        BrokerStandInProcess.Stats drained = broker.stats().since(before);

        assertThat(answers.get(0).path("published").asInt()).as(answers.toString()).isEqualTo(ROWS);
        return new Drain(drained.calls(), drained.connections());
      }
    } finally {
      db.dropTables(tables);
    }
  }
}
