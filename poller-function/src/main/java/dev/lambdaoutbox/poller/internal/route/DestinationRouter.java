package dev.lambdaoutbox.poller.internal.route;

import dev.lambdaoutbox.store.model.OutboxMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a row is published: its own destination if it has one; else the route whose pattern matches
 * its event type (an exact pattern beats any wildcard, a longer wildcard prefix beats a shorter
 * one); else the default destination; else nowhere.
 */
public final class DestinationRouter {
  private final Map<String, String> exact = new HashMap<>();

  /** Wildcard routes, longest prefix first. */
  private final List<Map.Entry<String, String>> prefixes = new ArrayList<>();

  private final String defaultDestination;

  /**
   * @param routes pattern to destination; a pattern is an event type, or a prefix ending in '*'
   * @param defaultDestination used when nothing else matches; may be empty
   */
  public DestinationRouter(Map<String, String> routes, Optional<String> defaultDestination) {
    routes.forEach(
        (pattern, destination) -> {
          if (pattern.endsWith("*")) {
            prefixes.add(Map.entry(pattern.substring(0, pattern.length() - 1), destination));
          } else {
            exact.put(pattern, destination);
          }
        });
    prefixes.sort(
        Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed());
    this.defaultDestination = defaultDestination.orElse(null);
  }

  /** The destination for {@code message}, or empty when it has none. */
  public Optional<String> route(OutboxMessage message) {
    if (message.destination() != null && !message.destination().isBlank()) {
      return Optional.of(message.destination());
    }
    return routeEventType(message.eventType());
  }

  /** The destination routing gives an event type, ignoring any row destination. */
  public Optional<String> routeEventType(String eventType) {
    String destination = exact.get(eventType);
    if (destination != null) {
      return Optional.of(destination);
    }
    for (Map.Entry<String, String> prefix : prefixes) {
      if (eventType.startsWith(prefix.getKey())) {
        return Optional.of(prefix.getValue());
      }
    }
    return Optional.ofNullable(defaultDestination);
  }
}
