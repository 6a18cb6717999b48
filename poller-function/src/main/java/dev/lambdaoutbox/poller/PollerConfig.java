package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.core.ClaimCheckFormat;
import dev.lambdaoutbox.poller.internal.claimcheck.ClaimCheck;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.ConnectionLimits;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.config.SharedVariables;
import dev.lambdaoutbox.store.config.StoreSettings;
import dev.lambdaoutbox.store.model.Ordering;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The poller's settings, read once from the environment and validated against their declarations
 * ({@link PollerVariables}, and the database's and the shared ones it adds): a missing or unusable
 * variable fails start-up with a {@link ConfigurationException} naming it and the value. The
 * settings come in small records by concern, each read and checked on its own (including the
 * settings of its concern that must agree with each other), so a part of the poller takes only the
 * record it needs.
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
    Ordering ordering,
    RoutingSettings routing,
    RetrySettings retry,
    ClaimSettings claims,
    TimingSettings timing,
    IdleSettings idle,
    PublishSettings publishing,
    StoreTuning storeTuning,
    TelemetrySettings telemetry,
    Optional<ClaimCheck> claimCheck) {

  public PollerConfig {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(connectionLimits, "connectionLimits");
    Objects.requireNonNull(ordering, "ordering");
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(claims, "claims");
    Objects.requireNonNull(timing, "timing");
    Objects.requireNonNull(idle, "idle");
    Objects.requireNonNull(publishing, "publishing");
    Objects.requireNonNull(storeTuning, "storeTuning");
    Objects.requireNonNull(telemetry, "telemetry");
    Objects.requireNonNull(claimCheck, "claimCheck");
  }

  /**
   * Reads and validates every variable; throws {@link ConfigurationException} on the first bad one.
   */
  public static PollerConfig fromEnvironment(Map<String, String> environment) {
    EnvironmentReader env = new EnvironmentReader(environment);
    StoreSettings database = StoreSettings.fromEnvironment(env);
    ConnectionLimits connectionLimits = ConnectionLimits.fromEnvironment(env);
    Ordering ordering = Ordering.parse(env.choice(SharedVariables.ORDERING));
    return new PollerConfig(
        database,
        connectionLimits,
        ordering,
        RoutingSettings.fromEnvironment(env, ordering),
        RetrySettings.fromEnvironment(env),
        ClaimSettings.fromEnvironment(env),
        TimingSettings.fromEnvironment(env),
        IdleSettings.fromEnvironment(env),
        PublishSettings.fromEnvironment(env, ordering),
        StoreTuning.fromEnvironment(env),
        TelemetrySettings.fromEnvironment(env),
        claimCheck(env));
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
        ordering,
        routing,
        retry,
        claims,
        timing,
        idle.withPollInterval(interval),
        publishing,
        storeTuning,
        telemetry,
        claimCheck);
  }
}
