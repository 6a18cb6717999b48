package dev.lambdaoutbox.poller.internal.publish;

import dev.lambdaoutbox.core.Destinations;

/**
 * The three kinds of destination, each with the largest entry it accepts and the largest batch
 * call, in bytes as the service counts them (SNS and SQS: body plus attributes; EventBridge: the
 * entry's Source, DetailType, Detail and Time). The figures are AWS's current quotas: SNS 256 KiB;
 * SQS 1 MiB (raised from 256 KiB, for every queue whose MaximumMessageSize allows it); EventBridge
 * 1 MiB per PutEvents entry and call (raised from 256 KiB in January 2026). A batch call carries at
 * most its kind's limit in all, so one entry at the limit goes out alone.
 */
public enum DestinationKind {
  SNS_TOPIC("SNS", 256 * 1024),
  SQS_QUEUE("SQS", 1024 * 1024),
  EVENT_BUS("EventBridge", 1024 * 1024);

  private final String service;
  private final int maxBytes;

  DestinationKind(String service, int maxBytes) {
    this.service = service;
    this.maxBytes = maxBytes;
  }

  /** The kind of a valid destination ({@link Destinations#problemWith} null). */
  public static DestinationKind of(String destination) {
    if (Destinations.isSnsTopicArn(destination)) {
      return SNS_TOPIC;
    }
    if (Destinations.isEventBusArn(destination)) {
      return EVENT_BUS;
    }
    return SQS_QUEUE;
  }

  /** The service's name, for reasons and logs. */
  public String service() {
    return service;
  }

  /** The largest entry, and the largest batch call, the service accepts, in bytes. */
  public int maxBytes() {
    return maxBytes;
  }
}
