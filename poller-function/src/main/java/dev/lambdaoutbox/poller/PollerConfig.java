package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.core.ClaimCheckFormat;
import dev.lambdaoutbox.poller.internal.claimcheck.ClaimCheck;
import dev.lambdaoutbox.poller.internal.envelope.CloudEvent;
import dev.lambdaoutbox.poller.internal.envelope.MessageEnvelope;
import dev.lambdaoutbox.poller.internal.publish.EventSource;
import dev.lambdaoutbox.poller.internal.route.Routes;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.Setting;
import dev.lambdaoutbox.store.config.SharedVariables;
import dev.lambdaoutbox.store.config.StoreSettings;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.MetricNamespace;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The poller's settings, read once from the environment and validated against their declarations
 * ({@link PollerVariables}, and the database's and the shared ones it adds): a missing or unusable
 * variable fails start-up with a {@link ConfigurationException} naming it and the value. Beside
 * each variable's own bounds, the settings must agree with each other: the backoff's cap is at
 * least its base, the largest claim at least the first, the longest probe interval at least the
 * shortest, and the lease outlasts two publish calls and the safety margin.
 *
 * <p>With {@code OUTBOX_CLAIM_CHECK_BUCKET}, {@link #claimCheck()} says where payloads too large
 * for their destination are stored; without it, its prefix and threshold have no effect.
 *
 * <p>The SNS/SQS/EventBridge/S3 endpoint is the SDK's own business: it honours {@code
 * AWS_ENDPOINT_URL} and {@code AWS_REGION}.
 */
public record PollerConfig(
    StoreSettings database,
    ConnectionLimits connectionLimits,
    Optional<String> defaultDestination,
    Map<String, String> routes,
    String eventSource,
    int eventBusMaxEntryBytes,
    Ordering ordering,
    int maxRetries,
    Duration backoffBase,
    Duration backoffMax,
    Duration probeIntervalMin,
    Duration probeIntervalMax,
    int maxSendRate,
    int batchSize,
    int maxBatchSize,
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
    boolean pipeline,
    Duration wakeLinger,
    int parkingChunkSize,
    Optional<ClaimCheck> claimCheck,
    MessageEnvelope envelope) {

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

    Optional<String> defaultDestination = env.optional(PollerVariables.DEFAULT_DESTINATION);
    defaultDestination.ifPresent(
        d -> Routes.requireDestination(PollerVariables.DEFAULT_DESTINATION.name(), d, ""));
    Map<String, String> routes = Routes.parse(env.text(PollerVariables.ROUTES));
    Ordering ordering = Ordering.parse(env.choice(SharedVariables.ORDERING));
    if (ordering == Ordering.AGGREGATE) {
      Routes.requireOrderKept(routes, defaultDestination);
    }
    String eventSource = env.text(PollerVariables.EVENT_SOURCE, EventSource::problemWith);
    int eventBusMaxEntryBytes = env.integer(PollerVariables.EVENT_BUS_MAX_ENTRY_BYTES);
    int maxRetries = env.integer(PollerVariables.MAX_RETRIES);
    Duration backoffBase = env.duration(PollerVariables.BACKOFF_BASE_MS);
    Duration backoffMax = env.duration(PollerVariables.BACKOFF_MAX_MS);
    requireAtLeast(
        PollerVariables.BACKOFF_MAX_MS,
        backoffMax,
        PollerVariables.BACKOFF_BASE_MS,
        backoffBase,
        "the cap must be at least the base delay");
    Duration probeMin = env.duration(PollerVariables.PROBE_INTERVAL_MIN_MS);
    Duration probeMax = env.duration(PollerVariables.PROBE_INTERVAL_MAX_MS);
    requireAtLeast(
        PollerVariables.PROBE_INTERVAL_MAX_MS,
        probeMax,
        PollerVariables.PROBE_INTERVAL_MIN_MS,
        probeMin,
        "the longest interval between probes must be at least the shortest");
    int maxSendRate = env.integer(PollerVariables.MAX_SEND_RATE);
    int batchSize = env.integer(PollerVariables.BATCH_SIZE);
    int maxBatchSize = env.integer(PollerVariables.MAX_BATCH_SIZE);
    if (maxBatchSize < batchSize) {
      throw new ConfigurationException(
          PollerVariables.MAX_BATCH_SIZE.name(),
          maxBatchSize
              + " is below "
              + PollerVariables.BATCH_SIZE.name()
              + " ("
              + batchSize
              + "); the largest claim must be at least the first");
    }
    Duration pollInterval = env.duration(PollerVariables.POLL_INTERVAL_MS);
    Duration publishTimeout = env.duration(PollerVariables.PUBLISH_TIMEOUT_MS);
    Duration lease = env.duration(PollerVariables.LEASE_SECONDS);
    Duration safetyMargin = env.duration(PollerVariables.SAFETY_MARGIN_MS);
    requireLeaseOutlastsCalls(lease, publishTimeout, safetyMargin);
    int concurrency = env.integer(PollerVariables.PUBLISH_CONCURRENCY);
    Duration retention = env.duration(PollerVariables.RETENTION_HOURS);
    Duration idempotencyWindow = env.duration(PollerVariables.IDEMPOTENCY_WINDOW_HOURS);
    JsonLogger.Level logLevel = JsonLogger.Level.parse(env.choice(SharedVariables.LOG_LEVEL));
    String namespace = env.text(SharedVariables.METRICS_NAMESPACE, MetricNamespace::problemWith);
    String service = env.text(PollerVariables.SERVICE_NAME);
    int maxConcurrentPollers = env.integer(PollerVariables.MAX_CONCURRENT_POLLERS);
    boolean pipeline =
        switch (env.choice(PollerVariables.PIPELINE)) {
          // Off with ordering: there a short claim must wait for its recording anyway, and over
          // few busy aggregates the pipelined loop measured slower than the sequential one.
          case "auto" -> ordering != Ordering.AGGREGATE;
          case "true" -> true;
          default -> false;
        };
    Duration wakeLinger = env.duration(PollerVariables.WAKE_LINGER_MS);
    int parkingChunkSize = env.integer(PollerVariables.PARKING_CHUNK_SIZE);
    Optional<ClaimCheck> claimCheck = claimCheck(env);
    MessageEnvelope envelope = envelope(env, eventSource);

    return new PollerConfig(
        database,
        connectionLimits,
        defaultDestination,
        routes,
        eventSource,
        eventBusMaxEntryBytes,
        ordering,
        maxRetries,
        backoffBase,
        backoffMax,
        probeMin,
        probeMax,
        maxSendRate,
        batchSize,
        maxBatchSize,
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
        pipeline,
        wakeLinger,
        parkingChunkSize,
        claimCheck,
        envelope);
  }

  /**
   * The body of SNS and SQS messages ({@code OUTBOX_MESSAGE_ENVELOPE}); CloudEvents take their
   * source from {@code OUTBOX_EVENT_SOURCE}, which must then be a URI reference.
   */
  private static MessageEnvelope envelope(EnvironmentReader env, String eventSource) {
    if (!env.choice(PollerVariables.MESSAGE_ENVELOPE).equals(MessageEnvelope.CLOUDEVENTS_NAME)) {
      return MessageEnvelope.OUTBOX;
    }
    String problem = CloudEvent.sourceProblem(eventSource);
    if (problem != null) {
      throw new ConfigurationException(
          PollerVariables.EVENT_SOURCE.name(),
          "'"
              + eventSource
              + "' "
              + problem
              + " (the source of every CloudEvent, with "
              + PollerVariables.MESSAGE_ENVELOPE.name()
              + "="
              + MessageEnvelope.CLOUDEVENTS_NAME
              + ")");
    }
    return MessageEnvelope.cloudEvents(eventSource);
  }

  /**
   * The claim check, when {@code OUTBOX_CLAIM_CHECK_BUCKET} is set. Its prefix and threshold are
   * validated whether or not it is, so a bad value fails start-up wherever it is set.
   */
  private static Optional<ClaimCheck> claimCheck(EnvironmentReader env) {
    String prefix = env.text(PollerVariables.CLAIM_CHECK_PREFIX, ClaimCheck::prefixProblem);
    int threshold = env.integer(PollerVariables.CLAIM_CHECK_THRESHOLD_BYTES);
    Optional<String> bucket = env.optional(PollerVariables.CLAIM_CHECK_BUCKET);
    if (bucket.isEmpty()) {
      return Optional.empty();
    }
    String name = bucket.get();
    String problem = ClaimCheckFormat.bucketProblem(name);
    if (problem != null) {
      throw new ConfigurationException(
          PollerVariables.CLAIM_CHECK_BUCKET.name(), "'" + name + "' " + problem);
    }
    String owner =
        env.required(
            PollerVariables.CLAIM_CHECK_BUCKET_OWNER,
            "the account that owns " + PollerVariables.CLAIM_CHECK_BUCKET.name() + " " + name);
    String ownerProblem = ClaimCheck.ownerProblem(owner);
    if (ownerProblem != null) {
      throw new ConfigurationException(
          PollerVariables.CLAIM_CHECK_BUCKET_OWNER.name(), "'" + owner + "' " + ownerProblem);
    }
    return Optional.of(new ClaimCheck(name, prefix, threshold, owner));
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
        eventSource,
        eventBusMaxEntryBytes,
        ordering,
        maxRetries,
        backoffBase,
        backoffMax,
        probeIntervalMin,
        probeIntervalMax,
        maxSendRate,
        batchSize,
        maxBatchSize,
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
        pipeline,
        wakeLinger,
        parkingChunkSize,
        claimCheck,
        envelope);
  }

  /** Refuses {@code max} below {@code min}, naming {@code maxSetting} and saying {@code why}. */
  private static void requireAtLeast(
      Setting maxSetting, Duration max, Setting minSetting, Duration min, String why) {
    if (max.compareTo(min) < 0) {
      throw new ConfigurationException(
          maxSetting.name(),
          max.toMillis()
              + "ms is below "
              + minSetting.name()
              + " ("
              + min.toMillis()
              + "ms); "
              + why);
    }
  }

  /**
   * Refuses a lease that does not exceed two publish calls and the safety margin: one call may
   * start just before the cut-off and must end, and its rows be recorded, before the lease runs
   * out.
   */
  private static void requireLeaseOutlastsCalls(
      Duration lease, Duration publishTimeout, Duration safetyMargin) {
    Duration leaseNeeds = publishTimeout.multipliedBy(2).plus(safetyMargin);
    if (lease.compareTo(leaseNeeds) <= 0) {
      throw new ConfigurationException(
          PollerVariables.LEASE_SECONDS.name(),
          lease.toSeconds()
              + "s does not exceed twice "
              + PollerVariables.PUBLISH_TIMEOUT_MS.name()
              + " plus "
              + PollerVariables.SAFETY_MARGIN_MS.name()
              + " ("
              + leaseNeeds.toMillis()
              + "ms); claimed rows could be claimed again while still being published");
    }
  }
}
