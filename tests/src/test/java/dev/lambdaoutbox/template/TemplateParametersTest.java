package dev.lambdaoutbox.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lambdaoutbox.core.OutboxTables;
import dev.lambdaoutbox.core.SqlDialect;
import dev.lambdaoutbox.docs.DocPages;
import dev.lambdaoutbox.poller.PollerConfig;
import dev.lambdaoutbox.reprocessor.ReplayDestinations;
import dev.lambdaoutbox.reprocessor.ReprocessorConfig;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.DataApiSettings;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.StoreSettings;
import dev.lambdaoutbox.template.SamTemplate.StoreMode;
import dev.lambdaoutbox.testing.AwsEndpoint;
import dev.lambdaoutbox.testing.OutboxFunction;
import dev.lambdaoutbox.testing.PackagedFunction;
import dev.lambdaoutbox.testing.TestDatabase;
import dev.lambdaoutbox.testing.TestEndpoints;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/**
 * The template's parameters against the code that reads them, in both store modes: every bound is
 * exactly what the function's configuration parser accepts (found by probing it on both sides of
 * each bound), every default is the code's own default, each mode gives the functions the store
 * settings the code reads and is refused without the parameters it needs, the string patterns
 * accept what the code accepts, the poller's shortest timeout really publishes, and the docs'
 * parameter table (docs/configuration.md) says the same.
 */
class TemplateParametersTest {
  private static final SamTemplate TEMPLATE = SamTemplate.load();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Each function's configuration parser, as its handler calls it at start-up. */
  private static final Map<String, Function<Map<String, String>, Object>> PARSERS =
      Map.of(
          "PollerFunction", PollerConfig::fromEnvironment,
          "DlqReprocessorFunction", ReprocessorConfig::fromEnvironment);

  /** The least a function needs to start over JDBC: a database and a login. */
  private static Map<String, String> minimal(String... more) {
    return minimal(StoreMode.JDBC, more);
  }

  /** The least a function needs to start in {@code mode}. */
  private static Map<String, String> minimal(StoreMode mode, String... more) {
    Map<String, String> env = new HashMap<>();
    switch (mode) {
      case JDBC -> {
        env.put("OUTBOX_JDBC_URL", "jdbc:postgresql://db.internal:5432/app");
        env.put("OUTBOX_DB_USER", "outbox");
        env.put("OUTBOX_DB_PASSWORD", "secret");
      }
      case DATA_API -> {
        env.put("OUTBOX_STORE", "data-api");
        env.put("OUTBOX_DATA_API_RESOURCE_ARN", SamTemplate.CLUSTER_ARN);
        env.put("OUTBOX_DATA_API_SECRET_ARN", SamTemplate.SECRET_ARN);
        env.put("OUTBOX_DATABASE", "orders");
      }
    }
    for (int i = 0; i < more.length; i += 2) {
      env.put(more[i], more[i + 1]);
    }
    return env;
  }

  /**
   * Environment variable to the parameter it is set from in {@code mode} ({@code !Ref Parameter},
   * directly or as the branch of an {@code !If} that the mode takes).
   */
  private static Map<String, String> parameterVariables(String function, StoreMode mode) {
    SamTemplate.Resolved stack =
        TEMPLATE.resolve(SamTemplate.requiredParameters(mode), "outbox", Map.of());
    Map<String, String> variables = new LinkedHashMap<>();
    TEMPLATE
        .rawEnvironment(function)
        .forEach(
            (variable, raw) -> {
              Object chosen = raw;
              if (SamTemplate.map(raw).get("Fn::If") instanceof List<?> branches) {
                chosen =
                    stack.condition(String.valueOf(branches.get(0)))
                        ? branches.get(1)
                        : branches.get(2);
              }
              Object ref = SamTemplate.map(chosen).get("Ref");
              if (ref != null && TEMPLATE.parameters().containsKey(String.valueOf(ref))) {
                variables.put(variable, String.valueOf(ref));
              }
            });
    return variables;
  }

  @Test
  void everyNumericParameterOfAFunction_hasExactlyTheBoundsItsConfigurationAccepts() {
    List<String> checked = new ArrayList<>();
    for (StoreMode mode : StoreMode.values()) {
      PARSERS.forEach(
          (function, parser) ->
              parameterVariables(function, mode)
                  .forEach(
                      (variable, parameter) -> {
                        Map<String, Object> p = TEMPLATE.parameter(parameter);
                        if (!"Number".equals(p.get("Type"))) {
                          return;
                        }
                        assertThat(p).as(parameter).containsKeys("MinValue", "MaxValue");
                        long min = Long.parseLong(String.valueOf(p.get("MinValue")));
                        long max = Long.parseLong(String.valueOf(p.get("MaxValue")));
                        String what =
                            parameter + " (" + variable + ", " + function + ", " + mode + ")";
                        assertAccepted(parser, mode, variable, min, what);
                        assertAccepted(parser, mode, variable, max, what);
                        assertRefused(parser, mode, variable, min - 1, what);
                        assertRefused(parser, mode, variable, max + 1, what);
                        checked.add(parameter);
                      }));
    }
    assertThat(checked)
        .contains("MaxRetries", "BatchSize", "MaxBatchSize", "RetentionHours", "PollIntervalMs");
  }

  @Test
  void everyParameterOfAFunction_defaultsToWhatTheCodeUsesWhenTheVariableIsUnset() {
    List<String> checked = new ArrayList<>();
    for (StoreMode mode : StoreMode.values()) {
      Map<String, String> least = minimal(mode);
      PARSERS.forEach(
          (function, parser) -> {
            Object codeDefaults = parser.apply(least);
            parameterVariables(function, mode)
                .forEach(
                    (variable, parameter) -> {
                      Object fallback = TEMPLATE.parameter(parameter).get("Default");
                      if (fallback == null || least.containsKey(variable)) {
                        return; // required in this mode: no default to compare
                      }
                      assertThat(parser.apply(minimal(mode, variable, String.valueOf(fallback))))
                          .as(
                              "%s defaults to %s; %s without it (%s)",
                              parameter, fallback, variable, mode)
                          .isEqualTo(codeDefaults);
                      checked.add(parameter);
                    });
          });
    }
    assertThat(checked)
        .contains(
            "StoreMode",
            "DataApiEngine",
            "MaxRetries",
            "BatchSize",
            "RetentionHours",
            "PollIntervalMs",
            "Routes",
            "TablePrefix",
            "MetricsNamespace");
  }

  /**
   * Each store mode gives both functions the settings their configuration reads, named as the code
   * names them, and none of the other mode's.
   */
  @Test
  void eachStoreMode_givesBothFunctionsTheStoreSettingsTheirConfigurationReads() {
    Map<String, String> topic = Map.of("OutboxTopic", "arn:aws:sns:us-east-1:123456789012:o");
    SamTemplate.Resolved jdbc =
        TEMPLATE.resolve(
            SamTemplate.requiredParameters(StoreMode.JDBC, "TablePrefix", "app_"), "outbox", topic);
    SamTemplate.Resolved dataApi =
        TEMPLATE.resolve(
            SamTemplate.requiredParameters(
                StoreMode.DATA_API, "TablePrefix", "app_", "DataApiEngine", "mysql"),
            "outbox",
            topic);
    OutboxTables tables = OutboxTables.withPrefix("app_");
    PARSERS.forEach(
        (function, parser) -> {
          assertThat(storeSettings(parser.apply(jdbc.environment(function))))
              .as(function)
              .isEqualTo(
                  new DatabaseSettings(
                      SamTemplate.requiredParameters().get("JdbcUrl"),
                      SqlDialect.POSTGRESQL,
                      Optional.of(SamTemplate.SECRET_ARN),
                      Optional.empty(),
                      Optional.empty(),
                      tables));
          assertThat(jdbc.environment(function).keySet())
              .as(function)
              .noneMatch(v -> v.startsWith("OUTBOX_DATA_API_") || v.equals("OUTBOX_DATABASE"));

          assertThat(storeSettings(parser.apply(dataApi.environment(function))))
              .as(function)
              .isEqualTo(
                  new DataApiSettings(
                      SamTemplate.CLUSTER_ARN,
                      SamTemplate.SECRET_ARN,
                      "orders",
                      SqlDialect.MYSQL,
                      DataApiSettings.DEFAULT_RETRY_TIMEOUT,
                      tables));
          assertThat(dataApi.environment(function).keySet())
              .as(function)
              .doesNotContain("OUTBOX_JDBC_URL", "OUTBOX_DB_SECRET_ARN");
        });
  }

  private static StoreSettings storeSettings(Object config) {
    return switch (config) {
      case PollerConfig poller -> poller.database();
      case ReprocessorConfig reprocessor -> reprocessor.database();
      default -> throw new IllegalArgumentException(String.valueOf(config));
    };
  }

  /**
   * Each store mode's parameters are optional in the template, as the other mode does without them;
   * the Rules refuse a stack missing any that its mode needs, naming it.
   */
  @Test
  void eachStoreMode_isRefusedWithoutAnyParameterItNeeds_andNeedsNoneOfTheOthers() {
    for (StoreMode mode : StoreMode.values()) {
      Map<String, String> given = SamTemplate.requiredParameters(mode);
      assertThat(TEMPLATE.resolve(given, "outbox", Map.of()).ruleFailures())
          .as("%s with %s", mode, given.keySet())
          .isEmpty();
      for (String parameter : given.keySet()) {
        if (parameter.equals("StoreMode") || parameter.equals("DbSecretArn")) {
          continue; // the mode itself, and a parameter without a default: CloudFormation demands it
        }
        Map<String, String> without = new LinkedHashMap<>(given);
        without.remove(parameter);
        assertThat(TEMPLATE.resolve(without, "outbox", Map.of()).ruleFailures())
            .as("%s without %s", mode, parameter)
            .singleElement(InstanceOfAssertFactories.STRING)
            .contains("StoreMode " + mode, parameter);
      }
    }
    assertThat(SamTemplate.requiredParameters(StoreMode.DATA_API))
        .doesNotContainKeys("JdbcUrl", "SubnetIds", "SecurityGroupIds");
  }

  @Test
  void pollerTimeoutMinimum_coversTheDatabaseConnectThenOnePublishCallAndTheSafetyMargin() {
    Map<String, Object> timeout = TEMPLATE.parameter("PollerTimeoutSeconds");
    PollerConfig defaults = PollerConfig.fromEnvironment(minimal());
    Duration needed =
        defaults
            .connectionLimits()
            .connectTimeout()
            .plus(defaults.timing().publishTimeout())
            .plus(defaults.timing().safetyMargin());
    assertThat(Duration.ofSeconds(Long.parseLong(String.valueOf(timeout.get("MinValue")))))
        .isGreaterThanOrEqualTo(needed);
    assertThat(timeout.get("MaxValue")).as("Lambda's longest timeout").isEqualTo(900);
  }

  /**
   * The packaged poller, freshly started and configured by the template (its first database
   * connection still to open), given the template's shortest timeout: it publishes. Given the time
   * of one publish call and the margin, less a second, it claims nothing: what a shorter minimum
   * would deploy.
   */
  @Test
  void pollerAtTheShortestTimeout_publishes_whereASecondLessThanACallAndTheMarginClaimsNothing()
      throws Exception {
    TestDatabase db = TestEndpoints.postgres();
    AwsEndpoint aws = TestEndpoints.aws();
    OutboxTables tables = db.createTables("tplmin");
    try (var sqs = aws.sqs()) {
      String queue = sqs.createQueue(r -> r.queueName(tables.prefix() + "q")).queueUrl();
      try {
        SamTemplate.Resolved stack =
            TEMPLATE.resolve(
                SamTemplate.requiredParameters(
                    "JdbcUrl", db.jdbcUrl(),
                    "TablePrefix", tables.prefix(),
                    "DefaultDestination", queue),
                "tplmin",
                Map.of());
        Map<String, String> login = new HashMap<>();
        login.put("OUTBOX_DB_SECRET_ARN", null);
        login.put("OUTBOX_DB_USER", db.user());
        login.put("OUTBOX_DB_PASSWORD", db.password());
        String event =
            Files.readString(PackagedFunction.projectRoot().resolve("events/scheduled-event.json"));
        OutboxWriter writer = OutboxWriter.builder().tables(tables).build();
        db.jdbi()
            .useTransaction(
                h ->
                    writer.append(
                        h,
                        OutboxEvent.builder()
                            .aggregateType("a")
                            .aggregateId("1")
                            .eventType("t")
                            .payload("{}")
                            .build()));

        PollerConfig defaults = PollerConfig.fromEnvironment(minimal());
        Duration tooShort =
            defaults
                .timing()
                .publishTimeout()
                .plus(defaults.timing().safetyMargin())
                .minusSeconds(1);
        JsonNode cut = run(stack, event, tooShort, aws, login);
        assertThat(cut.get("claimed").asInt()).isZero();
        assertThat(cut.get("stoppedBecause").asText()).isEqualTo("time");

        Duration shortest =
            Duration.ofSeconds(
                Long.parseLong(
                    String.valueOf(TEMPLATE.parameter("PollerTimeoutSeconds").get("MinValue"))));
        JsonNode summary = run(stack, event, shortest, aws, login);
        assertThat(summary.get("published").asInt()).as(summary.toString()).isEqualTo(1);
      } finally {
        sqs.deleteQueue(r -> r.queueUrl(queue));
        db.dropTables(tables);
      }
    }
  }

  private static JsonNode run(
      SamTemplate.Resolved stack,
      String event,
      Duration timeout,
      AwsEndpoint aws,
      Map<String, String> overrides)
      throws Exception {
    TemplateFunction.Invocation invocation =
        TemplateFunction.invoke(stack, "PollerFunction", event, timeout, aws, overrides);
    assertThat(invocation.result().failed()).as(invocation.output()).isFalse();
    return JSON.readTree(invocation.result().body());
  }

  @Test
  void localRuns_useTheTemplatesModulesHandlersTimeoutsAndAsyncInvokeConfigs() {
    SamTemplate.Resolved stack =
        TEMPLATE.resolve(SamTemplate.requiredParameters(), "outbox", Map.of());
    Map<String, OutboxFunction> functions =
        Map.of(
            "PollerFunction", OutboxFunction.POLLER,
            "DlqReprocessorFunction", OutboxFunction.REPROCESSOR);
    functions.forEach(
        (name, function) -> {
          Map<String, Object> p = stack.properties(name);
          assertThat(p.get("CodeUri")).as(name).isEqualTo(function.module());
          assertThat(p.get("Handler")).as(name).isEqualTo(function.handler());
          assertThat(String.valueOf(p.get("Timeout")))
              .as(name)
              .isEqualTo(String.valueOf(function.timeout().toSeconds()));
          Map<?, ?> async = (Map<?, ?>) p.get("EventInvokeConfig");
          assertThat(String.valueOf(async.get("MaximumRetryAttempts")))
              .as(name)
              .isEqualTo(String.valueOf(function.asyncInvokeConfig().maximumRetryAttempts()));
          Object age = async.get("MaximumEventAgeInSeconds");
          assertThat(age == null ? 21_600L : Long.parseLong(String.valueOf(age)))
              .as(name + ": MaximumEventAgeInSeconds, 6 hours when unset")
              .isEqualTo(function.asyncInvokeConfig().maximumEventAge().toSeconds());
        });
  }

  @Test
  void jdbcUrlPattern_acceptsExactlyTheUrlsTheFunctionsStartWith() {
    Pattern allowed = allowedPattern("JdbcUrl");
    for (String url :
        List.of(
            "jdbc:postgresql://db:5432/app",
            "jdbc:mysql://db:3306/app?sslMode=REQUIRED",
            "jdbc:mariadb://db:3306/app",
            "jdbc:oracle:thin:@db:1521/app",
            "postgresql://db/app")) {
      boolean codeAccepts = accepts(() -> databaseSettings("OUTBOX_JDBC_URL", url));
      assertThat(allowed.matcher(url).matches()).as(url).isEqualTo(codeAccepts);
    }
  }

  @Test
  void dataApiClusterArnPattern_acceptsExactlyTheArnsTheFunctionsStartWith() {
    Pattern allowed = allowedPattern("DataApiClusterArn");
    for (String arn :
        List.of(
            SamTemplate.CLUSTER_ARN,
            "arn:aws-cn:rds:cn-north-1:123456789012:cluster:orders-2",
            "arn:aws-us-gov:rds:us-gov-west-1:123456789012:cluster:Orders",
            "arn:aws:rds:us-east-1:123456789012:db:orders",
            "arn:aws:rds:us-east-1:12345:cluster:orders",
            "arn:aws:rds:us-east-1:123456789012:cluster:",
            "arn:aws:rds:us-east-1:123456789012:cluster:orders/x",
            "orders")) {
      boolean codeAccepts =
          accepts(
              () ->
                  StoreSettings.fromEnvironment(
                      new EnvironmentReader(
                          minimal(StoreMode.DATA_API, "OUTBOX_DATA_API_RESOURCE_ARN", arn))));
      assertThat(allowed.matcher(arn).matches()).as(arn).isEqualTo(codeAccepts);
    }
  }

  /**
   * An entry of {@code ReplayDestinations} (or of {@code PublishTopicArns}, {@code
   * PublishQueueArns}, its default) the stack takes is one the reprocessor starts with: not one
   * that deploys, then fails every run of it.
   */
  @Test
  void replayDestinationsPattern_acceptsExactlyTheEntriesTheReprocessorStartsWith() {
    Pattern allowed = allowedPattern("ReplayDestinations");
    Pattern topics = allowedPattern("PublishTopicArns");
    Pattern queues = allowedPattern("PublishQueueArns");
    for (String entry :
        List.of(
            "arn:aws:sns:us-east-1:123456789012:orders",
            "arn:aws:sqs:us-east-1:123456789012:orders.fifo",
            "arn:aws:sns:*:*:orders-*",
            "arn:aws-cn:sqs:cn-north-1:123456789012:q?",
            "arn:aws:events:us-east-1:123456789012:event-bus/orders",
            "https://sqs.us-east-1.amazonaws.com/123456789012/orders",
            "*",
            "arn:aws:sns:us-east-1:123456789012:",
            "arn:aws:sns:us-east-1:123456789012:a:b",
            "orders")) {
      boolean codeAccepts = accepts(() -> ReplayDestinations.parse(entry, "us-east-1"));
      assertThat(allowed.matcher(entry).matches()).as(entry).isEqualTo(codeAccepts);
      assertThat(topics.matcher(entry).matches() || queues.matcher(entry).matches())
          .as("%s in PublishTopicArns or PublishQueueArns", entry)
          .isEqualTo(codeAccepts);
    }
  }

  @Test
  void tablePrefixPattern_acceptsExactlyThePrefixesTheCodeAccepts() {
    Pattern allowed = allowedPattern("TablePrefix");
    for (String prefix :
        List.of(
            "",
            "a",
            "app_",
            "_x",
            "A1_b2",
            "x".repeat(OutboxTables.MAX_PREFIX_LENGTH),
            "x".repeat(OutboxTables.MAX_PREFIX_LENGTH + 1),
            "1app",
            "app-",
            "app prefix")) {
      boolean codeAccepts = accepts(() -> databaseSettings("OUTBOX_TABLE_PREFIX", prefix));
      assertThat(allowed.matcher(prefix).matches()).as("'%s'", prefix).isEqualTo(codeAccepts);
    }
  }

  @Test
  void metricsNamespacePattern_acceptsExactlyTheNamespacesTheFunctionsAccept() {
    Pattern allowed = allowedPattern("MetricsNamespace");
    for (String namespace :
        List.of(
            "LambdaOutbox",
            "Shop/Outbox",
            "A",
            "AW",
            "AWS",
            "AWSOutbox",
            "AW/S",
            "AWS:x",
            "aws/outbox",
            "x".repeat(255),
            "AWS/",
            "AWS/Lambda",
            "AWS/x".repeat(10),
            "x".repeat(256),
            "/Outbox",
            ":Outbox",
            "Out\u00e9box")) {
      for (Function<Map<String, String>, Object> parser : PARSERS.values()) {
        boolean codeAccepts =
            accepts(() -> parser.apply(minimal("OUTBOX_METRICS_NAMESPACE", namespace)));
        assertThat(allowed.matcher(namespace).matches()).as(namespace).isEqualTo(codeAccepts);
      }
    }
    assertThat(
            accepts(
                () ->
                    PollerConfig.fromEnvironment(
                        minimal("OUTBOX_METRICS_NAMESPACE", "AWS/Lambda"))))
        .isFalse();
  }

  /**
   * The docs' table of deployment parameters, on whichever page has it: a row per template
   * parameter, saying its default ({@code required} when it has none, {@code empty} for "") and,
   * for numbers and choices, its bounds as {@code min–max}, {@code ≥ min} or the values.
   */
  @Test
  void docsParameterTable_hasEveryParameterWithTheTemplatesDefaultAndBounds() throws Exception {
    Map<String, String[]> rows = docsRows();
    TEMPLATE
        .parameters()
        .forEach(
            (name, raw) -> {
              Map<String, Object> p = SamTemplate.map(raw);
              assertThat(rows).as("the docs' parameter table").containsKey(name);
              String[] row = rows.get(name);
              Object fallback = p.get("Default");
              String expectedDefault =
                  fallback == null
                      ? "required"
                      : String.valueOf(fallback).isEmpty() ? "empty" : "`" + fallback + "`";
              assertThat(row[0]).as("default of %s", name).isEqualTo(expectedDefault);
              String bounds = expectedBounds(p);
              if (bounds != null) {
                assertThat(row[1]).as("bounds of %s", name).isEqualTo(bounds);
              }
            });
    assertThat(rows.keySet())
        .as("rows without a parameter")
        .isSubsetOf(TEMPLATE.parameters().keySet());
  }

  private static String expectedBounds(Map<String, Object> p) {
    if (p.containsKey("AllowedValues")) {
      return String.join(
          ", ", ((List<?>) p.get("AllowedValues")).stream().map(v -> "`" + v + "`").toList());
    }
    if (p.containsKey("MinValue") && p.containsKey("MaxValue")) {
      return p.get("MinValue") + "–" + p.get("MaxValue");
    }
    if (p.containsKey("MinValue")) {
      return "≥ " + p.get("MinValue");
    }
    return null;
  }

  /**
   * Parameter name to {default, bounds} from the rows {@code | `Name` | variable | default | bounds
   * | meaning |} of the page that has the table.
   */
  private static Map<String, String[]> docsRows() {
    String header = "| parameter | variable | default | bounds | meaning |";
    List<DocPages.Page> pages =
        DocPages.all().stream().filter(p -> !p.table(header).isEmpty()).toList();
    assertThat(pages).as("one page has the parameter table").hasSize(1);
    Map<String, String[]> rows = new LinkedHashMap<>();
    for (List<String> row : pages.get(0).table(header)) {
      Matcher name = Pattern.compile("^`([A-Za-z]+)`$").matcher(row.get(0));
      assertThat(name.matches()).as("a parameter name in backticks: %s", row.get(0)).isTrue();
      rows.put(name.group(1), new String[] {row.get(2), row.get(3)});
    }
    return rows;
  }

  // ---- helpers

  private static Pattern allowedPattern(String parameter) {
    return Pattern.compile(String.valueOf(TEMPLATE.parameter(parameter).get("AllowedPattern")));
  }

  private static void databaseSettings(String variable, String value) {
    DatabaseSettings.fromEnvironment(new EnvironmentReader(minimal(variable, value)));
  }

  private static boolean accepts(Runnable parse) {
    try {
      parse.run();
      return true;
    } catch (ConfigurationException e) {
      return false;
    }
  }

  private static void assertAccepted(
      Function<Map<String, String>, Object> parser,
      StoreMode mode,
      String variable,
      long value,
      String what) {
    // The largest claim must be at least the first, whose default is 100: the pair is set together.
    String[] more =
        variable.equals("OUTBOX_MAX_BATCH_SIZE")
            ? new String[] {variable, Long.toString(value), "OUTBOX_BATCH_SIZE", "1"}
            : new String[] {variable, Long.toString(value)};
    assertThatCode(() -> parser.apply(minimal(mode, more)))
        .as("%s = %d is within the template's bounds", what, value)
        .doesNotThrowAnyException();
  }

  private static void assertRefused(
      Function<Map<String, String>, Object> parser,
      StoreMode mode,
      String variable,
      long value,
      String what) {
    Throwable refused =
        catchThrowable(() -> parser.apply(minimal(mode, variable, Long.toString(value))));
    assertThat(refused)
        .as("%s = %d is outside the template's bounds, so the code must refuse it", what, value)
        .isInstanceOf(ConfigurationException.class);
    assertThat(((ConfigurationException) refused).variable()).isEqualTo(variable);
  }
}
