package dev.lambdaoutbox.reprocessor;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lambdaoutbox.reprocessor.internal.action.DeadLetterActions;
import dev.lambdaoutbox.reprocessor.internal.action.DestinationCheck;
import dev.lambdaoutbox.reprocessor.internal.action.Requester;
import dev.lambdaoutbox.reprocessor.internal.request.ReprocessorRequest;
import dev.lambdaoutbox.reprocessor.internal.request.RequestParser;
import dev.lambdaoutbox.store.SqlExecutors;
import dev.lambdaoutbox.store.deadletter.DeadLetterStore;
import dev.lambdaoutbox.store.model.Ordering;
import dev.lambdaoutbox.store.model.deadletter.DeadLetter;
import dev.lambdaoutbox.store.rewind.RewindStore;
import dev.lambdaoutbox.store.waiting.WaitingRowStore;
import dev.lambdaoutbox.telemetry.EmfMetrics;
import dev.lambdaoutbox.telemetry.JsonLogger;
import dev.lambdaoutbox.telemetry.JsonWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.SnsClientBuilder;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * The Lambda operators invoke by hand to {@code list}, {@code replay} and {@code discard} dead
 * letters, to {@code retarget} or {@code deadLetter} rows waiting for a destination that is down,
 * to {@code rewind} delivered events to a new subscriber, and to read the {@code audit} of what was
 * done (see the module README for the request and report formats). A destination a request sends
 * events to instead of their own is checked ({@link DestinationCheck}: allowed, and existing)
 * before any row moves.
 *
 * <p>A {@link RequestStreamHandler}, not a {@code RequestHandler<Map, ...>}: the function reads the
 * raw JSON itself, so it can refuse repeated keys, unknown fields, nulls and wrong types with an
 * error naming the field, which a runtime-deserialized map would silently accept or coerce.
 *
 * <p>A refused request, or a replay or discard that failed part-way, ends the invocation with an
 * exception whose message is a JSON error ({@code {"error": ..., "field": ..., "message": ...}}):
 * {@code aws lambda invoke} then reports {@code FunctionError: Unhandled} and the output file holds
 * that JSON as {@code errorMessage}. A refused request changes nothing.
 */
public final class DeadLetterReprocessorHandler implements RequestStreamHandler {
  /** The time an invocation has left when its context does not say (a test without one). */
  private static final Duration DEFAULT_TIME_LEFT = Duration.ofMinutes(1);

  /** The longest one SNS or SQS call of a destination check may take. */
  private static final Duration CHECK_CALL_TIMEOUT = Duration.ofSeconds(10);

  private final DeadLetterStore store;
  private final DeadLetterActions actions;
  private final DestinationCheck destinations;
  private final EmfMetrics metrics;
  private final JsonLogger log;

  /**
   * Lambda's constructor, the function's composition root: reads the configuration and builds the
   * whole graph once per container (the store and its executor, JDBC or Data API; the destination
   * check, whose SNS/SQS clients are built on its first use; logs and metrics on standard output).
   */
  public DeadLetterReprocessorHandler() {
    this(System.getenv());
  }

  /** Everything from {@code environment}, as the no-arg constructor does from the real one. */
  DeadLetterReprocessorHandler(Map<String, String> environment) {
    this(ReprocessorConfig.fromEnvironment(environment));
  }

  private DeadLetterReprocessorHandler(ReprocessorConfig config) {
    this(
        config,
        DeadLetterStore.builder(
                SqlExecutors.fromSettings(config.database(), config.connectionLimits()))
            .tables(config.database().tables())
            .batchSize(config.batchSize()));
  }

  private DeadLetterReprocessorHandler(ReprocessorConfig config, DeadLetterStore.Builder stores) {
    this(config, stores, stores.build());
  }

  /**
   * The stores, and the actions on the clock the stores read, the database's: replays and the ages
   * a list reports are the database's times. Logs are on the host's clock, as Lambda's are.
   */
  private DeadLetterReprocessorHandler(
      ReprocessorConfig config, DeadLetterStore.Builder stores, DeadLetterStore store) {
    this(
        store,
        new DeadLetterActions(
            store,
            stores.waitingRows(config.ordering()),
            stores.rewinds(),
            config.ordering() == Ordering.AGGREGATE,
            stores.clock()),
        new DestinationCheck(
            config.replayDestinations(), () -> snsClient().build(), () -> sqsClient().build()),
        EmfMetrics.toStdout(config.metricsNamespace(), config.serviceName()),
        new JsonLogger(
            config.serviceName(),
            DeadLetterReprocessorHandler.class,
            config.logLevel(),
            System.out,
            Clock.systemUTC()));
  }

  /** Over a test's stores, destination check, metrics and log; actions on the system clock. */
  DeadLetterReprocessorHandler(
      DeadLetterStore store,
      WaitingRowStore waiting,
      RewindStore rewinds,
      Ordering ordering,
      DestinationCheck destinations,
      EmfMetrics metrics,
      JsonLogger log) {
    this(
        store,
        new DeadLetterActions(
            store, waiting, rewinds, ordering == Ordering.AGGREGATE, Clock.systemUTC()),
        destinations,
        metrics,
        log);
  }

  /** Given every collaborator. */
  DeadLetterReprocessorHandler(
      DeadLetterStore store,
      DeadLetterActions actions,
      DestinationCheck destinations,
      EmfMetrics metrics,
      JsonLogger log) {
    this.store = Objects.requireNonNull(store, "store");
    this.actions = Objects.requireNonNull(actions, "actions");
    this.destinations = Objects.requireNonNull(destinations, "destinations");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.log = Objects.requireNonNull(log, "log");
  }

  /** The SNS client of the destination check: the SDK's defaults, the URL-connection client. */
  private static SnsClientBuilder snsClient() {
    return SnsClient.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(o -> o.apiCallTimeout(CHECK_CALL_TIMEOUT));
  }

  /** The SQS client of the destination check, built as the SNS one. */
  private static SqsClientBuilder sqsClient() {
    return SqsClient.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(o -> o.apiCallTimeout(CHECK_CALL_TIMEOUT));
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    String requestId =
        context != null && context.getAwsRequestId() != null
            ? context.getAwsRequestId()
            : UUID.randomUUID().toString();
    ReprocessorRequest request;
    try {
      request = RequestParser.parse(input.readAllBytes());
      checkDestination(request);
    } catch (InvalidRequestException e) {
      log.warn(
          "request refused; nothing was changed",
          Map.of("requestId", requestId, "field", e.field(), "problem", e.problem()));
      throw e;
    }
    Requester.Attribution attribution = Requester.of(request.requestedBy(), context, requestId);
    Duration timeLeft =
        context != null && context.getRemainingTimeInMillis() > 0
            ? Duration.ofMillis(context.getRemainingTimeInMillis())
            : DEFAULT_TIME_LEFT;
    DeadLetterActions.Outcome outcome = actions.run(request, requestId, attribution, timeLeft);
    emitMetrics(request, requestId, outcome);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("requestId", requestId);
    fields.put("action", request.action());
    fields.put("requestedBy", attribution.requestedBy());
    if (attribution.invokedBy() != null) {
      fields.put("invokedBy", attribution.invokedBy());
      if (attribution.claimedBy() != null) {
        fields.put("claimedBy", attribution.claimedBy());
      }
    }
    if (request instanceof ReprocessorRequest.ListRequest) {
      // A page of rows can run to megabytes, far beyond one CloudWatch log event: counts only.
      fields.put("count", outcome.report().path("count").asInt());
      fields.put("matching", outcome.report().path("summary").path("total").asLong());
      fields.put("waitingRows", outcome.report().path("waiting").path("rows").asLong());
      fields.put(
          "waitingForTimeRows", outcome.report().path("waitingForTime").path("rows").asLong());
    } else if (request instanceof ReprocessorRequest.GroupListRequest) {
      // A page of groups can run past one CloudWatch log event (256 KB): counts only.
      fields.put("count", outcome.report().path("count").asInt());
      fields.put("unfingerprinted", outcome.report().path("unfingerprinted").asLong());
    } else if (request instanceof ReprocessorRequest.AuditRequest) {
      fields.put("count", outcome.report().path("count").asInt()); // as for list: no page
    } else {
      fields.put("report", new JsonWriter.Raw(outcome.report().toString()));
    }
    if (outcome.failure() != null) {
      log.error(request.action() + " stopped part-way", fields, outcome.failure());
      throw new ActionFailedException(outcome.report().toString(), outcome.failure());
    }
    log.info(request.action() + " done", fields);
    output.write(outcome.report().toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A destination the request sends events to instead of their own must be allowed and exist,
   * before anything is touched.
   */
  private void checkDestination(ReprocessorRequest request) {
    String destination =
        switch (request) {
          case ReprocessorRequest.ReplayRequest replay -> replay.destination();
          case ReprocessorRequest.RetargetRequest retarget -> retarget.destination();
          case ReprocessorRequest.RewindRequest rewind -> rewind.destination();
          default -> null;
        };
    if (destination != null) {
      destinations.check("destination", destination);
    }
  }

  private void emitMetrics(
      ReprocessorRequest request, String requestId, DeadLetterActions.Outcome outcome) {
    EmfMetrics.Batch batch =
        metrics
            .batch()
            .property("action", request.action())
            .property("requestId", requestId)
            .count("Replayed", outcome.replayed())
            .count("Discarded", outcome.discarded());
    if (request instanceof ReprocessorRequest.RewindRequest) {
      // A rewind's progress: copies this step scheduled (a metric), how many in all and whether
      // it is done (properties: a metric more would cost every month, for a rare request).
      batch
          .count("Rewound", outcome.rewound())
          .property("rewindId", outcome.report().path("rewindId").asText(null))
          .property("rewoundInAll", outcome.report().path("scheduledInAll").asLong())
          .property("rewindDone", outcome.report().path("done").asBoolean(false));
    }
    JsonNode progress = outcome.report().path("progress");
    if (progress.isObject()) {
      // A re-drive's progress: the group's dead letters left, its rows scheduled at the pace and
      // held by a stop, each counted up to DeadLetter.COUNT_CAP + 1.
      batch
          .property("failureGroup", outcome.report().path("group").asText())
          .count("RedriveRemaining", progress.path("remaining").asLong())
          .count("RedriveScheduled", progress.path("scheduled").asLong())
          .count("RedriveHeld", progress.path("held").asLong());
      JsonNode canary = outcome.report().path("canary");
      if (canary.isObject()) {
        batch.property("canaryState", canary.path("state").asText());
      }
    }
    try {
      long backlog = store.count();
      batch
          .count("DeadLetterBacklog", backlog)
          .property("deadLetterBacklogCapped", backlog > DeadLetter.COUNT_CAP);
    } catch (RuntimeException e) {
      // The action's own outcome is already decided; a failed count must not hide it.
      log.warn(
          "could not count the dead letters for DeadLetterBacklog",
          Map.of("requestId", requestId, "error", String.valueOf(e.getMessage())));
    }
    batch.emit();
  }
}
