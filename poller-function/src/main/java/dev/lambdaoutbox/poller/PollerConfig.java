package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.poller.internal.RoutesJson;
import dev.lambdaoutbox.store.Ordering;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.DatabaseSettings;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.StoreSettings;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.MetricNamespace;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The poller's settings, read once from the environment and validated. A missing or unusable
 * variable fails start-up with a {@link ConfigurationException} naming it.
 *
 * <p>Where the rows are ({@link StoreSettings}): {@code OUTBOX_STORE} ({@code jdbc} or {@code
 * data-api}); over JDBC ({@link DatabaseSettings}) {@code OUTBOX_JDBC_URL}, {@code
 * OUTBOX_DB_SECRET_ARN} or {@code OUTBOX_DB_USER}/{@code OUTBOX_DB_PASSWORD}; over the RDS Data API
 * ({@link dev.lambdaoutbox.store.config.DataApiSettings}) {@code OUTBOX_DATA_API_RESOURCE_ARN},
 * {@code OUTBOX_DATA_API_SECRET_ARN}, {@code OUTBOX_DATABASE}; {@code OUTBOX_TABLE_PREFIX}; and the
 * connection's timeouts ({@link ConnectionLimits}: {@code OUTBOX_DB_CONNECT_TIMEOUT_MS}, {@code
 * OUTBOX_DB_STATEMENT_TIMEOUT_MS}, ...).
 *
 * <p>Where they go:
 *
 * <ul>
 *   <li>{@code OUTBOX_DEFAULT_DESTINATION}: SNS topic ARN or SQS queue URL for events that neither
 *       carry their own destination nor match a route. Optional; without it such an event is
 *       dead-lettered with {@code NO_DESTINATION}.
 *   <li>{@code OUTBOX_ROUTES}: a JSON object from event-type pattern to destination, e.g. {@code
 *       {"reservation.*":"arn:aws:sns:...:reservations","payment.failed":"https://sqs..."}}. A
 *       pattern is an exact event type, or a prefix ending in {@code *}; an exact match beats any
 *       wildcard, and a longer prefix beats a shorter one. Every destination is checked at
 *       start-up. Default: no routes.
 * </ul>
 *
 * <p>In what order:
 *
 * <ul>
 *   <li>{@code OUTBOX_ORDERING} ({@code none}, the default, or {@code aggregate}): with {@code
 *       aggregate}, each aggregate's events (key: aggregate type and id) are published one at a
 *       time in the order they were written, across all pollers; an event that keeps failing holds
 *       up its own aggregate only, and one that is dead-lettered parks its aggregate until an
 *       operator replays or discards it ({@link Ordering}). Needs schema migration V5.
 * </ul>
 *
 * <p>How hard it tries:
 *
 * <ul>
 *   <li>{@code OUTBOX_MAX_RETRIES} (default 10, 0 to 100): retries after the first attempt. A row
 *       whose publish fails transiently once more after this many retries is dead-lettered, so a
 *       row gets at most {@code OUTBOX_MAX_RETRIES + 1} attempts.
 *   <li>{@code OUTBOX_BACKOFF_BASE_MS} (default 1000) and {@code OUTBOX_BACKOFF_MAX_MS} (default
 *       900000, 15 minutes): the delay before retry {@code n} is drawn between half and all of
 *       {@code min(max, base * 2^(n-1))}, so delays grow, never exceed the cap, and spread out rows
 *       that failed together. Only failures that belong to one message spend a retry (an entry
 *       refused while the rest of its batch went through, a message too large, no destination).
 *   <li>{@code OUTBOX_PROBE_INTERVAL_MIN_MS} (default 5000, 1000 to 60000) and {@code
 *       OUTBOX_PROBE_INTERVAL_MAX_MS} (default 60000, 5000 to 3600000): a destination found down
 *       (unreachable, failing, throttling, or refusing every message) is left alone, its rows
 *       waiting without spending retries, and probed with one small batch after {@code min(max, min
 *       * 2^(n-1))} for its n-th probe. A destination back up is noticed within the max interval
 *       plus one schedule period.
 * </ul>
 *
 * <p>How much one invocation does:
 *
 * <ul>
 *   <li>{@code OUTBOX_BATCH_SIZE} (default 100, 1 to 1000): rows claimed at a time. A full batch is
 *       followed at once by another claim, so a backlog drains in one invocation.
 *   <li>{@code OUTBOX_POLL_INTERVAL_MS} (default 0, up to 60000): 0 drains the due rows and stops;
 *       a positive value keeps claiming at this interval until the invocation's remaining time runs
 *       low, so an event is published about that long after its transaction commits.
 *   <li>{@code OUTBOX_PUBLISH_TIMEOUT_MS} (default 10000, 1000 to 120000): the longest one SNS/SQS
 *       batch call may take, SDK retries included.
 *   <li>{@code OUTBOX_LEASE_SECONDS} (default 120, 10 to 900): how long claimed rows stay reserved
 *       for this invocation; after it another invocation may claim them (say this one crashed).
 *       Must exceed twice the publish timeout: one call may start just before the cut-off and must
 *       end, and its rows be recorded, before the lease runs out.
 *   <li>{@code OUTBOX_SAFETY_MARGIN_MS} (default 3000, 500 to 60000): time kept in hand before the
 *       Lambda timeout; no batch is claimed or sent that could not finish before it.
 *   <li>{@code OUTBOX_PUBLISH_CONCURRENCY} (default 8, 1 to 64): batch calls in flight at once,
 *       across destinations.
 *   <li>{@code OUTBOX_RETENTION_HOURS} (default 0, up to 8760): 0 deletes a row once published;
 *       otherwise the store keeps it as SENT (so its idempotency key stays taken) and each
 *       invocation purges sent rows older than this.
 *   <li>{@code OUTBOX_IDEMPOTENCY_WINDOW_HOURS} (default 24, 1 to 8760): how long an idempotency
 *       key stays taken; each invocation purges keys first seen longer ago than this.
 *   <li>{@code OUTBOX_MAX_CONCURRENT_POLLERS} (default 1, 1 to 1000): the most invocations that
 *       drain at once. Above 1, a scheduled invocation that finds more due rows than it can publish
 *       before its timeout starts further invocations of its own function (asynchronous {@code
 *       Invoke}), up to this many in all; 1 never does.
 *   <li>{@code OUTBOX_PIPELINE} (default auto): true, an invocation claims its next batch while it
 *       publishes the one before, and records outcomes on a second database connection meanwhile;
 *       false claims, publishes and records one batch after the other on one connection; auto is
 *       true unless {@code OUTBOX_ORDERING} is aggregate.
 * </ul>
 *
 * <p>Telemetry: {@code OUTBOX_LOG_LEVEL} (DEBUG, INFO, WARN, ERROR; default INFO), {@code
 * OUTBOX_METRICS_NAMESPACE} (default {@code LambdaOutbox}), {@code OUTBOX_SERVICE_NAME} (the
 * metrics' {@code Service} dimension and the logs' {@code service}; default {@code outbox-poller}).
 *
 * <p>The SNS/SQS endpoint is the SDK's own business: it honours {@code AWS_ENDPOINT_URL} and {@code
 * AWS_REGION}.
 */
public record PollerConfig(
    StoreSettings database,
    ConnectionLimits connectionLimits,
    Optional<String> defaultDestination,
    Map<String, String> routes,
    Ordering ordering,
    int maxRetries,
    Duration backoffBase,
    Duration backoffMax,
    Duration probeIntervalMin,
    Duration probeIntervalMax,
    int batchSize,
    Duration pollInterval,
    Duration publishTimeout,
    Duration lease,
    Duration safetyMargin,
    int publishConcurrency,
    Duration retention,
    Duration idempotencyWindow,
    JsonLogger.Level logLevel,
    String metricsNamespace,
    String serviceName,
    int maxConcurrentPollers,
    boolean pipeline) {

  public static final String DEFAULT_DESTINATION = "OUTBOX_DEFAULT_DESTINATION";
  public static final String ROUTES = "OUTBOX_ROUTES";
  public static final String ORDERING = "OUTBOX_ORDERING";
  public static final String MAX_RETRIES = "OUTBOX_MAX_RETRIES";
  public static final String BACKOFF_BASE_MS = "OUTBOX_BACKOFF_BASE_MS";
  public static final String BACKOFF_MAX_MS = "OUTBOX_BACKOFF_MAX_MS";
  public static final String PROBE_INTERVAL_MIN_MS = "OUTBOX_PROBE_INTERVAL_MIN_MS";
  public static final String PROBE_INTERVAL_MAX_MS = "OUTBOX_PROBE_INTERVAL_MAX_MS";
  public static final String BATCH_SIZE = "OUTBOX_BATCH_SIZE";
  public static final String POLL_INTERVAL_MS = "OUTBOX_POLL_INTERVAL_MS";
  public static final String PUBLISH_TIMEOUT_MS = "OUTBOX_PUBLISH_TIMEOUT_MS";
  public static final String LEASE_SECONDS = "OUTBOX_LEASE_SECONDS";
  public static final String SAFETY_MARGIN_MS = "OUTBOX_SAFETY_MARGIN_MS";
  public static final String PUBLISH_CONCURRENCY = "OUTBOX_PUBLISH_CONCURRENCY";
  public static final String RETENTION_HOURS = "OUTBOX_RETENTION_HOURS";
  public static final String IDEMPOTENCY_WINDOW_HOURS = "OUTBOX_IDEMPOTENCY_WINDOW_HOURS";
  public static final String LOG_LEVEL = "OUTBOX_LOG_LEVEL";
  public static final String METRICS_NAMESPACE = "OUTBOX_METRICS_NAMESPACE";
  public static final String SERVICE_NAME = "OUTBOX_SERVICE_NAME";
  public static final String MAX_CONCURRENT_POLLERS = "OUTBOX_MAX_CONCURRENT_POLLERS";
  public static final String PIPELINE = "OUTBOX_PIPELINE";

  public PollerConfig {
    routes = Collections.unmodifiableMap(new LinkedHashMap<>(routes));
  }

  /**
   * Reads and validates every variable; throws {@link ConfigurationException} on the first bad one.
   */
  public static PollerConfig fromEnvironment(Map<String, String> environment) {
    EnvironmentReader env = new EnvironmentReader(environment);
    StoreSettings database = StoreSettings.fromEnvironment(env);
    ConnectionLimits connectionLimits = ConnectionLimits.fromEnvironment(env);

    Optional<String> defaultDestination = env.optional(DEFAULT_DESTINATION);
    defaultDestination.ifPresent(d -> requireDestination(DEFAULT_DESTINATION, d, ""));
    Map<String, String> routes = parseRoutes(env.optional(ROUTES));

    String orderingText = env.string(ORDERING, "none");
    Ordering ordering = Ordering.parse(orderingText);
    if (ordering == null) {
      throw new ConfigurationException(
          ORDERING,
          "'"
              + orderingText
              + "' is not an ordering; use none (the default) or aggregate (each aggregate's"
              + " events one at a time, in order)");
    }
    int maxRetries = env.integer(MAX_RETRIES, 10, 0, 100);
    Duration backoffBase =
        env.millis(
            BACKOFF_BASE_MS, Duration.ofSeconds(1), Duration.ofMillis(10), Duration.ofHours(1));
    Duration backoffMax =
        env.millis(
            BACKOFF_MAX_MS, Duration.ofMinutes(15), Duration.ofMillis(10), Duration.ofHours(12));
    requireAtLeast(
        BACKOFF_MAX_MS,
        backoffMax,
        BACKOFF_BASE_MS,
        backoffBase,
        "the cap must be at least the base delay");

    Duration probeMin =
        env.millis(
            PROBE_INTERVAL_MIN_MS,
            Duration.ofSeconds(5),
            Duration.ofSeconds(1),
            Duration.ofMinutes(1));
    Duration probeMax =
        env.millis(
            PROBE_INTERVAL_MAX_MS,
            Duration.ofMinutes(1),
            Duration.ofSeconds(5),
            Duration.ofHours(1));
    requireAtLeast(
        PROBE_INTERVAL_MAX_MS,
        probeMax,
        PROBE_INTERVAL_MIN_MS,
        probeMin,
        "the longest interval between probes must be at least the shortest");

    int batchSize = env.integer(BATCH_SIZE, 100, 1, 1000);
    Duration pollInterval =
        env.millis(POLL_INTERVAL_MS, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1));
    Duration publishTimeout =
        env.millis(
            PUBLISH_TIMEOUT_MS,
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            Duration.ofMinutes(2));
    Duration lease =
        env.seconds(
            LEASE_SECONDS,
            Duration.ofSeconds(120),
            Duration.ofSeconds(10),
            Duration.ofSeconds(900));
    Duration safetyMargin =
        env.millis(
            SAFETY_MARGIN_MS, Duration.ofSeconds(3), Duration.ofMillis(500), Duration.ofMinutes(1));
    Duration leaseNeeds = publishTimeout.multipliedBy(2).plus(safetyMargin);
    if (lease.compareTo(leaseNeeds) <= 0) {
      throw new ConfigurationException(
          LEASE_SECONDS,
          lease.toSeconds()
              + "s does not exceed twice "
              + PUBLISH_TIMEOUT_MS
              + " plus "
              + SAFETY_MARGIN_MS
              + " ("
              + leaseNeeds.toMillis()
              + "ms); claimed rows could be claimed again while still being published");
    }
    int concurrency = env.integer(PUBLISH_CONCURRENCY, 8, 1, 64);
    Duration retention = Duration.ofHours(env.integer(RETENTION_HOURS, 0, 0, 8760));
    Duration idempotencyWindow =
        Duration.ofHours(env.integer(IDEMPOTENCY_WINDOW_HOURS, 24, 1, 8760));

    String levelText = env.string(LOG_LEVEL, "INFO");
    JsonLogger.Level logLevel = JsonLogger.Level.parse(levelText);
    if (logLevel == null) {
      throw new ConfigurationException(
          LOG_LEVEL, "'" + levelText + "' is not a log level; use DEBUG, INFO, WARN or ERROR");
    }
    String namespace = env.string(METRICS_NAMESPACE, "LambdaOutbox", MetricNamespace::problemWith);
    String service = env.string(SERVICE_NAME, "outbox-poller");
    int maxConcurrentPollers = env.integer(MAX_CONCURRENT_POLLERS, 1, 1, 1000);
    String pipelineText = env.string(PIPELINE, "auto");
    boolean pipeline =
        switch (pipelineText.toLowerCase(Locale.ROOT)) {
          // Off with ordering: there a short claim must wait for its recording anyway, and over
          // few busy aggregates the pipelined loop measured slower than the sequential one.
          case "auto" -> ordering != Ordering.AGGREGATE;
          case "true" -> true;
          case "false" -> false;
          default ->
              throw new ConfigurationException(
                  PIPELINE, "'" + pipelineText + "' is not auto, true or false");
        };

    return new PollerConfig(
        database,
        connectionLimits,
        defaultDestination,
        routes,
        ordering,
        maxRetries,
        backoffBase,
        backoffMax,
        probeMin,
        probeMax,
        batchSize,
        pollInterval,
        publishTimeout,
        lease,
        safetyMargin,
        concurrency,
        retention,
        idempotencyWindow,
        logLevel,
        namespace,
        service,
        maxConcurrentPollers,
        pipeline);
  }

  /**
   * This configuration with another poll interval (zero: drain the due rows and stop), e.g. for an
   * invocation started to help with a backlog.
   */
  public PollerConfig withPollInterval(Duration interval) {
    return new PollerConfig(
        database,
        connectionLimits,
        defaultDestination,
        routes,
        ordering,
        maxRetries,
        backoffBase,
        backoffMax,
        probeIntervalMin,
        probeIntervalMax,
        batchSize,
        interval,
        publishTimeout,
        lease,
        safetyMargin,
        publishConcurrency,
        retention,
        idempotencyWindow,
        logLevel,
        metricsNamespace,
        serviceName,
        maxConcurrentPollers,
        pipeline);
  }

  private static Map<String, String> parseRoutes(Optional<String> text) {
    Map<String, String> routes = new LinkedHashMap<>();
    if (text.isEmpty()) {
      return routes;
    }
    Map<String, RoutesJson.Value> json;
    try {
      json = RoutesJson.read(text.get());
    } catch (IOException e) {
      throw new ConfigurationException(
          ROUTES,
          "is not valid JSON ("
              + e.getMessage().lines().findFirst().orElse("")
              + "); expected an object such as {\"order.*\":\"arn:aws:sns:...\"}",
          e);
    }
    if (json == null) {
      throw new ConfigurationException(
          ROUTES,
          "'"
              + text.get()
              + "' is not a JSON object; expected one such as {\"order.*\":\"arn:aws:sns:...\"}");
    }
    for (Map.Entry<String, RoutesJson.Value> route : json.entrySet()) {
      String pattern = route.getKey();
      String patternProblem = problemWithPattern(pattern);
      if (patternProblem != null) {
        throw new ConfigurationException(ROUTES, "pattern '" + pattern + "' " + patternProblem);
      }
      if (!route.getValue().textual()) {
        throw new ConfigurationException(
            ROUTES,
            "route '"
                + pattern
                + "' maps to "
                + route.getValue().text()
                + ", not a destination string");
      }
      String destination = route.getValue().text().strip();
      requireDestination(ROUTES, destination, "route '" + pattern + "': ");
      routes.put(pattern, destination);
    }
    return routes;
  }

  /** Refuses {@code max} (variable {@code maxName}) below {@code min}, saying {@code why}. */
  private static void requireAtLeast(
      String maxName, Duration max, String minName, Duration min, String why) {
    if (max.compareTo(min) < 0) {
      throw new ConfigurationException(
          maxName,
          max.toMillis() + "ms is below " + minName + " (" + min.toMillis() + "ms); " + why);
    }
  }

  /** Null when {@code pattern} is an exact event type or a prefix ending in '*'. */
  static String problemWithPattern(String pattern) {
    if (pattern.isBlank()) {
      return "is blank";
    }
    int star = pattern.indexOf('*');
    if (star >= 0 && star != pattern.length() - 1) {
      return "has a '*' that is not its last character; only a trailing wildcard is supported";
    }
    return null;
  }

  private static void requireDestination(String variable, String destination, String context) {
    String problem = Destinations.problemWith(destination);
    if (problem != null) {
      throw new ConfigurationException(variable, context + problem);
    }
  }
}
