package dev.lambdaoutbox.poller.internal.publish;

/**
 * The {@code Source} of the events the poller puts on an EventBridge bus ({@code
 * OUTBOX_EVENT_SOURCE}): 1 to 256 characters, and not starting with {@code aws.}, which EventBridge
 * keeps for AWS services' own events.
 */
public final class EventSource {
  /** The default source. */
  public static final String DEFAULT = "lambda-outbox";

  /** PutEvents takes a Source of at most 256 characters. */
  static final int MAX_LENGTH = 256;

  private EventSource() {}

  /** Null when {@code source} may be an event's Source, otherwise what is wrong with it. */
  public static String problemWith(String source) {
    if (source == null || source.isBlank()) {
      return "is blank; EventBridge needs a Source such as 'com.example.orders'";
    }
    if (source.length() > MAX_LENGTH) {
      return "has " + source.length() + " characters; EventBridge takes at most " + MAX_LENGTH;
    }
    if (source.startsWith("aws.")) {
      return "starts with 'aws.', which EventBridge keeps for AWS services' own events";
    }
    return null;
  }
}
