package dev.lambdaoutbox.poller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.poller.internal.claimcheck.ClaimCheck;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.DataApiSettings;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.telemetry.JsonLogger;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PollerConfigTest {
  private static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:orders";
  private static final String BUS = "arn:aws:events:us-east-1:123456789012:event-bus/orders";
  private static final String QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/audit";

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/outbox");
    env.put("OUTBOX_DB_USER", "outbox");
    env.put("OUTBOX_DB_PASSWORD", "secret");
    return env;
  }

  @Test
  void fromEnvironment_minimal_usesTheDocumentedDefaults() {
    PollerConfig config = PollerConfig.fromEnvironment(minimal());

    assertThat(config.routing().defaultDestination()).isEmpty();
    assertThat(config.routing().routes()).isEmpty();
    assertThat(config.ordering()).isEqualTo(Ordering.NONE);
    assertThat(config.retry().maxRetries()).isEqualTo(10);
    assertThat(config.retry().backoffBase()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.retry().backoffMax()).isEqualTo(Duration.ofMinutes(15));
    assertThat(config.retry().probeIntervalMin()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.retry().probeIntervalMax()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.claims().batchSize()).isEqualTo(100);
    assertThat(config.claims().maxBatchSize()).isEqualTo(1_000);
    assertThat(config.idle().pollInterval()).isZero();
    assertThat(config.timing().publishTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.timing().lease()).isEqualTo(Duration.ofSeconds(120));
    assertThat(config.timing().safetyMargin()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.publishing().publishConcurrency()).isEqualTo(8);
    assertThat(config.storeTuning().retention()).isZero();
    assertThat(config.storeTuning().idempotencyWindow()).isEqualTo(Duration.ofHours(24));
    assertThat(config.telemetry().logLevel()).isEqualTo(JsonLogger.Level.INFO);
    assertThat(config.telemetry().metricsNamespace()).isEqualTo("LambdaOutbox");
    assertThat(config.telemetry().serviceName()).isEqualTo("outbox-poller");
    assertThat(config.publishing().maxConcurrentPollers()).isEqualTo(1);
    assertThat(config.publishing().pipeline()).isTrue();
    assertThat(config.idle().wakeLinger()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.storeTuning().parkingChunkSize()).isEqualTo(5_000);
    assertThat(config.claimCheck()).isEmpty();
  }

  @Test
  void claimCheck_readsBucketOwnerPrefixAndThreshold_withTheDefaultPrefix() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_CLAIM_CHECK_BUCKET", "orders-payloads");
    env.put("OUTBOX_CLAIM_CHECK_BUCKET_OWNER", "123456789012");
    assertThat(PollerConfig.fromEnvironment(env).claimCheck())
        .contains(new ClaimCheck("orders-payloads", "outbox-payloads/", 0, "123456789012"));
    Map<String, String> noBucket = minimal();
    noBucket.put("OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES", "1000");
    assertThat(PollerConfig.fromEnvironment(noBucket).claimCheck()).isEmpty();
    env.put("OUTBOX_CLAIM_CHECK_PREFIX", "large/");
    env.put("OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES", "65536");
    ClaimCheck claimCheck = PollerConfig.fromEnvironment(env).claimCheck().orElseThrow();
    assertThat(claimCheck)
        .isEqualTo(new ClaimCheck("orders-payloads", "large/", 65_536, "123456789012"));
  }

  @Test
  void claimCheck_keys_carryTheDestinationsPrefix_theEventIdAndThePayloadsDigest() {
    ClaimCheck claimCheck = new ClaimCheck("orders-payloads", "large/", 0, "123456789012");
    java.util.UUID id = java.util.UUID.fromString("0192d3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d");
    byte[] content = "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String digest = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";

    assertThat(claimCheck.key("arn:aws:sns:eu-west-1:123456789012:orders.fifo", id, content))
        .isEqualTo("large/sns/123456789012/orders.fifo/" + id + "-" + digest);
    assertThat(
            claimCheck.key("https://sqs.eu-west-1.amazonaws.com/210987654321/orders", id, content))
        .isEqualTo("large/sqs/210987654321/orders/" + id + "-" + digest);
    assertThat(
            claimCheck.key(
                "arn:aws:events:eu-west-1:123456789012:event-bus/aws.partner/x/orders",
                id,
                content))
        .isEqualTo("large/events/123456789012/aws.partner/x/orders/" + id + "-" + digest);
    assertThat(claimCheck.key("arn:aws:sns:eu-west-1:123456789012:orders", id, new byte[] {'1'}))
        .as("another payload, another object")
        .isNotEqualTo(claimCheck.key("arn:aws:sns:eu-west-1:123456789012:orders", id, content));
  }

  @Test
  void claimCheck_theLongestPrefix_withTheLongestDestinationMakesAKeyS3Takes() {
    String prefix = "p".repeat(ClaimCheck.MAX_PREFIX_BYTES);
    String bus = "b".repeat(256);
    String key =
        new ClaimCheck("orders-payloads", prefix, 0, "123456789012")
            .key(
                "arn:aws:events:eu-west-1:123456789012:event-bus/" + bus,
                java.util.UUID.randomUUID(),
                new byte[0]);

    assertThat(key.length()).isEqualTo(ClaimCheck.MAX_KEY_BYTES);
  }

  @Test
  void claimCheck_badSettings_failStartUpNamingTheVariable() {
    assertRejected("OUTBOX_CLAIM_CHECK_BUCKET", "Orders_Payloads", "not an S3 bucket name");
    assertRejected("OUTBOX_CLAIM_CHECK_BUCKET", "s3://orders", "not an S3 bucket name");
    assertRejected("OUTBOX_CLAIM_CHECK_BUCKET", "ab", "3 to 63");
    assertRejected("OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES", "many", "not a whole number");
    assertRejected("OUTBOX_CLAIM_CHECK_PREFIX", "/big/", "leading slash");
    for (String[] bad :
        new String[][] {
          {"OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES", "big", "not a whole number"},
          {"OUTBOX_CLAIM_CHECK_THRESHOLD_BYTES", "16777216", "out of range"},
          {"OUTBOX_CLAIM_CHECK_PREFIX", "/big/", "leading slash"},
          {"OUTBOX_CLAIM_CHECK_PREFIX", "p".repeat(647), "longer than 646"},
          {"OUTBOX_CLAIM_CHECK_BUCKET_OWNER", "", "is not set"},
          {"OUTBOX_CLAIM_CHECK_BUCKET_OWNER", "12345678901", "not an AWS account id"}
        }) {
      Map<String, String> env = minimal();
      env.put("OUTBOX_CLAIM_CHECK_BUCKET", "orders-payloads");
      env.put("OUTBOX_CLAIM_CHECK_BUCKET_OWNER", "123456789012");
      env.put(bad[0], bad[1]);
      assertThatThrownBy(() -> PollerConfig.fromEnvironment(env))
          .as("%s=%s", bad[0], bad[1])
          .isInstanceOfSatisfying(
              ConfigurationException.class, e -> assertThat(e.variable()).isEqualTo(bad[0]))
          .hasMessageContaining(bad[2]);
    }
  }

  @Test
  void pipeline_isReadAsAutoTrueOrFalse_andAnythingElseIsRefusedNamingTheVariable() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_ORDERING", "aggregate");
    assertThat(PollerConfig.fromEnvironment(env).publishing().pipeline())
        .as("auto, ordered")
        .isFalse();
    env.put("OUTBOX_PIPELINE", "auto");
    assertThat(PollerConfig.fromEnvironment(env).publishing().pipeline())
        .as("auto, ordered")
        .isFalse();
    env.put("OUTBOX_PIPELINE", "true");
    assertThat(PollerConfig.fromEnvironment(env).publishing().pipeline())
        .as("true, ordered")
        .isTrue();
    env.put("OUTBOX_ORDERING", "none");
    env.put("OUTBOX_PIPELINE", "Auto");
    assertThat(PollerConfig.fromEnvironment(env).publishing().pipeline())
        .as("auto, unordered")
        .isTrue();
    env.put("OUTBOX_PIPELINE", "false");
    assertThat(PollerConfig.fromEnvironment(env).publishing().pipeline()).isFalse();
    assertThat(
            PollerConfig.fromEnvironment(env)
                .withPollInterval(Duration.ZERO)
                .publishing()
                .pipeline())
        .isFalse();
    env.put("OUTBOX_PIPELINE", "TRUE");
    assertThat(PollerConfig.fromEnvironment(env).publishing().pipeline()).isTrue();

    env.put("OUTBOX_PIPELINE", "sometimes");
    assertThatThrownBy(() -> PollerConfig.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("OUTBOX_PIPELINE")
        .hasMessageContaining("sometimes")
        .hasMessageContaining("auto, true or false");
  }

  @Test
  void fromEnvironment_ordering_readsNoneOrAggregateInAnyCase() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_ORDERING", "Aggregate");
    assertThat(PollerConfig.fromEnvironment(env).ordering()).isEqualTo(Ordering.AGGREGATE);
    env.put("OUTBOX_ORDERING", "none");
    assertThat(PollerConfig.fromEnvironment(env).ordering()).isEqualTo(Ordering.NONE);
  }

  @Test
  void fromEnvironment_ordering_whenUnknown_refusesNamingTheVariableAndTheChoices() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_ORDERING", "fifo");

    assertThatThrownBy(() -> PollerConfig.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("OUTBOX_ORDERING")
        .hasMessageContaining("'fifo'")
        .hasMessageContaining("none")
        .hasMessageContaining("aggregate");
  }

  @Test
  void fromEnvironment_readsEverySetting() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_DEFAULT_DESTINATION", QUEUE);
    env.put("OUTBOX_ROUTES", "{\"order.*\":\"" + TOPIC + "\",\"order.failed\":\"" + QUEUE + "\"}");
    env.put("OUTBOX_MAX_RETRIES", "3");
    env.put("OUTBOX_BACKOFF_BASE_MS", "200");
    env.put("OUTBOX_BACKOFF_MAX_MS", "5000");
    env.put("OUTBOX_PROBE_INTERVAL_MIN_MS", "2000");
    env.put("OUTBOX_PROBE_INTERVAL_MAX_MS", "300000");
    env.put("OUTBOX_BATCH_SIZE", "250");
    env.put("OUTBOX_MAX_BATCH_SIZE", "500");
    env.put("OUTBOX_POLL_INTERVAL_MS", "200");
    env.put("OUTBOX_PUBLISH_TIMEOUT_MS", "4000");
    env.put("OUTBOX_LEASE_SECONDS", "60");
    env.put("OUTBOX_SAFETY_MARGIN_MS", "1500");
    env.put("OUTBOX_PUBLISH_CONCURRENCY", "16");
    env.put("OUTBOX_RETENTION_HOURS", "48");
    env.put("OUTBOX_IDEMPOTENCY_WINDOW_HOURS", "72");
    env.put("OUTBOX_LOG_LEVEL", "debug");
    env.put("OUTBOX_METRICS_NAMESPACE", "Shop");
    env.put("OUTBOX_SERVICE_NAME", "shop-outbox");
    env.put("OUTBOX_MAX_CONCURRENT_POLLERS", "4");
    env.put("OUTBOX_WAKE_LINGER_MS", "500");
    env.put("OUTBOX_PARKING_CHUNK_SIZE", "20000");

    PollerConfig config = PollerConfig.fromEnvironment(env);
    assertThat(config.idle().wakeLinger()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.storeTuning().parkingChunkSize()).isEqualTo(20_000);

    assertThat(config.routing().defaultDestination()).contains(QUEUE);
    assertThat(config.routing().routes())
        .containsExactly(Map.entry("order.*", TOPIC), Map.entry("order.failed", QUEUE));
    assertThat(config.retry().maxRetries()).isEqualTo(3);
    assertThat(config.retry().backoffBase()).isEqualTo(Duration.ofMillis(200));
    assertThat(config.retry().backoffMax()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.retry().probeIntervalMin()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.retry().probeIntervalMax()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.claims().batchSize()).isEqualTo(250);
    assertThat(config.claims().maxBatchSize()).isEqualTo(500);
    assertThat(config.idle().pollInterval()).isEqualTo(Duration.ofMillis(200));
    assertThat(config.timing().publishTimeout()).isEqualTo(Duration.ofSeconds(4));
    assertThat(config.timing().lease()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.timing().safetyMargin()).isEqualTo(Duration.ofMillis(1500));
    assertThat(config.publishing().publishConcurrency()).isEqualTo(16);
    assertThat(config.storeTuning().retention()).isEqualTo(Duration.ofHours(48));
    assertThat(config.storeTuning().idempotencyWindow()).isEqualTo(Duration.ofHours(72));
    assertThat(config.telemetry().logLevel()).isEqualTo(JsonLogger.Level.DEBUG);
    assertThat(config.telemetry().metricsNamespace()).isEqualTo("Shop");
    assertThat(config.telemetry().serviceName()).isEqualTo("shop-outbox");
    assertThat(config.publishing().maxConcurrentPollers()).isEqualTo(4);
    Map<String, String> noInterval = new HashMap<>(env);
    noInterval.put("OUTBOX_POLL_INTERVAL_MS", "0");
    assertThat(config.withPollInterval(Duration.ZERO))
        .isEqualTo(PollerConfig.fromEnvironment(noInterval));
  }

  @Test
  void fromEnvironment_badValues_nameTheVariable() {
    assertRejected("OUTBOX_BATCH_SIZE", "lots", "not a whole number");
    assertRejected("OUTBOX_BATCH_SIZE", "0", "out of range");
    assertRejected("OUTBOX_MAX_BATCH_SIZE", "1001", "out of range");
    assertRejected("OUTBOX_MAX_BATCH_SIZE", "99", "below OUTBOX_BATCH_SIZE (100)");
    assertRejected("OUTBOX_MAX_RETRIES", "-1", "out of range");
    assertRejected("OUTBOX_ROUTES", "{\"order.*\":", "not valid JSON");
    assertRejected("OUTBOX_ROUTES", "[\"" + TOPIC + "\"]", "not a JSON object");
    assertRejected("OUTBOX_ROUTES", "{\"order.*\":42}", "not a destination");
    assertRejected("OUTBOX_ROUTES", "{\"order.*\":\"orders-topic\"}", "'orders-topic'");
    assertRejected("OUTBOX_ROUTES", "{\"*.created\":\"" + TOPIC + "\"}", "trailing wildcard");
    assertRejected("OUTBOX_DEFAULT_DESTINATION", "arn:aws:sqs:eu-west-1:1:q", "none of");
    assertRejected("OUTBOX_EVENT_SOURCE", "aws.orders", "'aws.'");
    assertRejected("OUTBOX_EVENT_SOURCE", "s".repeat(257), "at most 256");
    assertRejected("OUTBOX_LOG_LEVEL", "LOUD", "not a log level");
    assertRejected("OUTBOX_LEASE_SECONDS", "20", "twice");
    assertRejected("OUTBOX_BACKOFF_MAX_MS", "500", "at least the base");
    assertRejected("OUTBOX_IDEMPOTENCY_WINDOW_HOURS", "0", "out of range");
    assertRejected("OUTBOX_IDEMPOTENCY_WINDOW_HOURS", "8761", "out of range");
    assertRejected("OUTBOX_IDEMPOTENCY_WINDOW_HOURS", "a day", "not a whole number");
    assertRejected("OUTBOX_PROBE_INTERVAL_MIN_MS", "999", "out of range");
    assertRejected("OUTBOX_PROBE_INTERVAL_MAX_MS", "3600001", "out of range");
    Map<String, String> crossed = minimal();
    crossed.put("OUTBOX_PROBE_INTERVAL_MIN_MS", "30000");
    crossed.put("OUTBOX_PROBE_INTERVAL_MAX_MS", "10000");
    assertThatThrownBy(() -> PollerConfig.fromEnvironment(crossed))
        .isInstanceOfSatisfying(
            ConfigurationException.class,
            e -> assertThat(e.variable()).isEqualTo("OUTBOX_PROBE_INTERVAL_MAX_MS"))
        .hasMessageContaining("OUTBOX_PROBE_INTERVAL_MIN_MS");
    assertRejected("OUTBOX_MAX_CONCURRENT_POLLERS", "0", "out of range");
    assertRejected("OUTBOX_MAX_CONCURRENT_POLLERS", "many", "not a whole number");
    assertRejected("OUTBOX_WAKE_LINGER_MS", "60001", "out of range");
    assertRejected("OUTBOX_WAKE_LINGER_MS", "-1", "out of range");
    assertRejected("OUTBOX_WAKE_LINGER_MS", "soon", "not a whole number");
    assertRejected("OUTBOX_PARKING_CHUNK_SIZE", "99", "out of range");
    assertRejected("OUTBOX_PARKING_CHUNK_SIZE", "50001", "out of range");
    assertRejected("OUTBOX_PARKING_CHUNK_SIZE", "all", "not a whole number");
  }

  @Test
  void fromEnvironment_databaseProblems_nameTheVariable() {
    Map<String, String> noUrl = minimal();
    noUrl.remove("OUTBOX_JDBC_URL");
    assertThatThrownBy(() -> PollerConfig.fromEnvironment(noUrl))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_JDBC_URL: is not set");

    Map<String, String> dataApi = minimal();
    dataApi.put("OUTBOX_STORE", "data-api");
    assertThatThrownBy(() -> PollerConfig.fromEnvironment(dataApi))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_DATA_API_RESOURCE_ARN: is not set");
  }

  @Test
  void fromEnvironment_dataApi_readsTheClusterSecretAndDatabase() {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_STORE", "data-api");
    env.put("OUTBOX_DATA_API_RESOURCE_ARN", "arn:aws:rds:eu-west-1:123456789012:cluster:orders");
    env.put(
        "OUTBOX_DATA_API_SECRET_ARN", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:db");
    env.put("OUTBOX_DATABASE", "orders");

    PollerConfig config = PollerConfig.fromEnvironment(env);

    assertThat(config.database())
        .isInstanceOfSatisfying(
            DataApiSettings.class,
            s -> {
              assertThat(s.resourceArn()).endsWith(":cluster:orders");
              assertThat(s.database()).isEqualTo("orders");
              assertThat(s.dialect()).isEqualTo(SqlDialect.POSTGRESQL);
            });
  }

  @Test
  void fromEnvironment_routeToAnEventBus_isAccepted_withTheDefaultSource() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_ROUTES", "{\"order.*\":\"" + BUS + "\"}");

    PollerConfig config = PollerConfig.fromEnvironment(env);

    assertThat(config.routing().routes()).containsEntry("order.*", BUS);
    assertThat(config.routing().eventSource()).isEqualTo("lambda-outbox");
  }

  @Test
  void fromEnvironment_orderedWithARouteToAnEventBus_isRefusedNamingTheRoute() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_ORDERING", "aggregate");
    env.put("OUTBOX_ROUTES", "{\"audit.*\":\"" + TOPIC + "\",\"order.*\":\"" + BUS + "\"}");

    assertThatThrownBy(() -> PollerConfig.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_ROUTES:")
        .hasMessageContaining("route 'order.*'")
        .hasMessageContaining(BUS)
        .hasMessageContaining("keeps no order");
  }

  @Test
  void fromEnvironment_orderedWithAnEventBusAsDefault_isRefusedNamingTheVariable() {
    Map<String, String> env = minimal();
    env.put("OUTBOX_ORDERING", "aggregate");
    env.put("OUTBOX_DEFAULT_DESTINATION", BUS);

    assertThatThrownBy(() -> PollerConfig.fromEnvironment(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("OUTBOX_DEFAULT_DESTINATION:")
        .hasMessageContaining("keeps no order");
  }

  private static void assertRejected(String variable, String value, String why) {
    Map<String, String> env = minimal();
    env.put(variable, value);
    assertThatThrownBy(() -> PollerConfig.fromEnvironment(env))
        .as("%s=%s", variable, value)
        .isInstanceOfSatisfying(
            ConfigurationException.class, e -> assertThat(e.variable()).isEqualTo(variable))
        .hasMessageStartingWith(variable + ":")
        .hasMessageContaining(why);
  }
}
