package dev.lambdaoutbox.poller.internal.route;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.poller.PollerVariables;
import dev.lambdaoutbox.store.config.ConfigurationException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads {@code OUTBOX_ROUTES}, a JSON object from event-type pattern to destination, and checks
 * every route at start-up: a pattern is an exact event type or a prefix ending in {@code *}, and
 * each destination an SNS topic ARN, SQS queue URL or EventBridge event bus ARN. A bad route is
 * refused with a {@link ConfigurationException} naming the variable, the route and what is wrong.
 */
public final class Routes {
  private static final String ROUTES = PollerVariables.ROUTES.name();

  private Routes() {}

  /** Pattern to destination, in the order written. */
  public static Map<String, String> parse(String text) {
    Map<String, String> routes = new LinkedHashMap<>();
    Map<String, RoutesJson.Value> json;
    try {
      json = RoutesJson.read(text);
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
              + text
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

  /** Refuses {@code destination} of {@code variable} unless it is a topic, queue or bus. */
  public static void requireDestination(String variable, String destination, String context) {
    String problem = Destinations.problemWith(destination);
    if (problem != null) {
      throw new ConfigurationException(variable, context + problem);
    }
  }

  /**
   * Refuses, for {@code OUTBOX_ORDERING=aggregate}, a route or default destination that names an
   * EventBridge event bus: a bus delivers to its targets in no particular order, so the order the
   * poller keeps per aggregate would be lost after it.
   */
  public static void requireOrderKept(
      Map<String, String> routes, Optional<String> defaultDestination) {
    for (Map.Entry<String, String> route : routes.entrySet()) {
      if (Destinations.isEventBusArn(route.getValue())) {
        throw new ConfigurationException(
            ROUTES,
            "route '"
                + route.getKey()
                + "' names the EventBridge event bus "
                + route.getValue()
                + ", which keeps no order, while OUTBOX_ORDERING=aggregate promises it; route the"
                + " event type to an SNS FIFO topic or SQS FIFO queue, or set OUTBOX_ORDERING=none");
      }
    }
    defaultDestination
        .filter(Destinations::isEventBusArn)
        .ifPresent(
            bus -> {
              throw new ConfigurationException(
                  PollerVariables.DEFAULT_DESTINATION.name(),
                  "names the EventBridge event bus "
                      + bus
                      + ", which keeps no order, while OUTBOX_ORDERING=aggregate promises it;"
                      + " name an SNS FIFO topic or SQS FIFO queue, or set OUTBOX_ORDERING=none");
            });
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
}
