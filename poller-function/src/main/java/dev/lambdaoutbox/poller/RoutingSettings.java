package dev.lambdaoutbox.poller;

import dev.lambdaoutbox.poller.internal.envelope.CloudEvent;
import dev.lambdaoutbox.poller.internal.envelope.MessageEnvelope;
import dev.lambdaoutbox.poller.internal.publish.EventSource;
import dev.lambdaoutbox.poller.internal.route.Routes;
import dev.lambdaoutbox.store.config.ConfigurationException;
import dev.lambdaoutbox.store.config.EnvironmentReader;
import dev.lambdaoutbox.store.model.Ordering;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where events go and what they look like there: the default destination, the routes, the Source of
 * bus entries and their size limit, the body of SNS and SQS messages.
 */
public record RoutingSettings(
    Optional<String> defaultDestination,
    Map<String, String> routes,
    String eventSource,
    int eventBusMaxEntryBytes,
    MessageEnvelope envelope) {

  public RoutingSettings {
    routes = Collections.unmodifiableMap(new LinkedHashMap<>(routes));
  }

  /** With ordering, every route must keep an aggregate's events at one destination. */
  static RoutingSettings fromEnvironment(EnvironmentReader env, Ordering ordering) {
    Optional<String> defaultDestination = env.optional(PollerVariables.DEFAULT_DESTINATION);
    defaultDestination.ifPresent(
        d -> Routes.requireDestination(PollerVariables.DEFAULT_DESTINATION.name(), d, ""));
    Map<String, String> routes = Routes.parse(env.text(PollerVariables.ROUTES));
    if (ordering == Ordering.AGGREGATE) {
      Routes.requireOrderKept(routes, defaultDestination);
    }
    String eventSource = env.text(PollerVariables.EVENT_SOURCE, EventSource::problemWith);
    return new RoutingSettings(
        defaultDestination,
        routes,
        eventSource,
        env.integer(PollerVariables.EVENT_BUS_MAX_ENTRY_BYTES),
        envelope(env, eventSource));
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
}
