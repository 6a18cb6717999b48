package dev.lambdaoutbox.reprocessor;

import dev.lambdaoutbox.core.Destinations;
import dev.lambdaoutbox.store.config.ConfigurationException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an operator may send events instead of their own destination ({@code
 * OUTBOX_REPLAY_DESTINATIONS}): SNS topic ARNs and SQS queue ARNs, in which {@code *} and {@code ?}
 * match as they do in an IAM policy's resource, so that the list can be the very resources the
 * stack lets the poller publish to (by default it is). A topic is matched by its ARN, a queue URL
 * by the queue's ARN ({@code https://sqs.eu-west-1.amazonaws.com/123456789012/orders} is {@code
 * arn:aws:sqs:eu-west-1:123456789012:orders}); a URL whose host names no region is in the
 * function's own ({@code AWS_REGION}).
 */
public final class ReplayDestinations {
  /** The variable the list is read from. */
  public static final String VARIABLE = ReprocessorVariables.REPLAY_DESTINATIONS.name();

  private static final Pattern ARN =
      Pattern.compile("arn:[a-z*?][a-z0-9*?\\-]*:(sns|sqs):[a-z0-9*?\\-]*:[0-9*?]*:[^:\\s]+");
  private static final Pattern REGION_IN_HOST =
      Pattern.compile("(?:^|\\.)([a-z]{2}(?:-[a-z]+)+-\\d+)(?:\\.|$)");

  private final List<String> entries;
  private final List<Pattern> patterns;
  private final String region;

  private ReplayDestinations(List<String> entries, String region) {
    this.entries = List.copyOf(entries);
    this.patterns = entries.stream().map(ReplayDestinations::glob).toList();
    this.region = region;
  }

  /**
   * The list in {@code text} (comma-separated ARNs; blank entries are left out), for a function in
   * {@code region} (null when unknown). An entry that is not a topic or queue ARN is refused,
   * naming {@link #VARIABLE}.
   */
  public static ReplayDestinations parse(String text, String region) {
    List<String> entries = new ArrayList<>();
    for (String entry : text == null ? new String[0] : text.split(",")) {
      String arn = entry.strip();
      if (arn.isEmpty()) {
        continue;
      }
      if (!ARN.matcher(arn).matches()) {
        throw new ConfigurationException(
            VARIABLE,
            "'"
                + arn
                + "' is neither an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME) nor an SQS"
                + " queue ARN (arn:aws:sqs:REGION:ACCOUNT:NAME); list them separated by commas,"
                + " with * and ? as in IAM");
      }
      entries.add(arn);
    }
    return new ReplayDestinations(entries, region == null || region.isBlank() ? null : region);
  }

  /** The entries, as configured. */
  public List<String> entries() {
    return entries;
  }

  /**
   * The ARN {@code destination} (a topic ARN or queue URL) is matched by; empty when it is a queue
   * URL whose region neither its host nor the function's environment says.
   */
  public Optional<String> arnOf(String destination) {
    if (Destinations.isSnsTopicArn(destination) || Destinations.isEventBusArn(destination)) {
      return Optional.of(destination);
    }
    URI url = URI.create(destination);
    String[] path = url.getPath().split("/");
    String host = url.getHost() == null ? "" : url.getHost().toLowerCase(Locale.ROOT);
    Matcher inHost = REGION_IN_HOST.matcher(host);
    String queueRegion = inHost.find() ? inHost.group(1) : region;
    if (queueRegion == null || path.length < 3) {
      return Optional.empty();
    }
    return Optional.of(
        "arn:"
            + partition(queueRegion)
            + ":sqs:"
            + queueRegion
            + ":"
            + path[path.length - 2]
            + ":"
            + path[path.length - 1]);
  }

  /** Whether an entry matches {@code arn}. */
  public boolean allows(String arn) {
    return patterns.stream().anyMatch(p -> p.matcher(arn).matches());
  }

  private static String partition(String region) {
    if (region.startsWith("cn-")) {
      return "aws-cn";
    }
    return region.startsWith("us-gov-") ? "aws-us-gov" : "aws";
  }

  /** An IAM resource pattern: {@code *} any run of characters, {@code ?} any one. */
  private static Pattern glob(String arn) {
    StringBuilder regex = new StringBuilder();
    for (String part : arn.split("(?<=[*?])|(?=[*?])")) {
      regex.append(
          switch (part) {
            case "*" -> ".*";
            case "?" -> ".";
            default -> Pattern.quote(part);
          });
    }
    return Pattern.compile(regex.toString());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReplayDestinations other
        && entries.equals(other.entries)
        && Objects.equals(region, other.region);
  }

  @Override
  public int hashCode() {
    return Objects.hash(entries, region);
  }

  @Override
  public String toString() {
    return entries.isEmpty() ? "(none)" : String.join(",", entries);
  }
}
