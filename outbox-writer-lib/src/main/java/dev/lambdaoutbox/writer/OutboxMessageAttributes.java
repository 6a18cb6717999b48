package dev.lambdaoutbox.writer;

import java.util.Set;

/**
 * The SNS/SQS message attributes the poller sets on every published message. Consumers read {@link
 * #EVENT_ID} to de-duplicate (see {@link Inbox}). Event headers travel as further attributes under
 * their own names, so they may not reuse these names.
 */
public final class OutboxMessageAttributes {
  public static final String EVENT_ID = "eventId";
  public static final String EVENT_TYPE = "eventType";
  public static final String AGGREGATE_TYPE = "aggregateType";
  public static final String AGGREGATE_ID = "aggregateId";
  public static final String OCCURRED_AT = "occurredAt";

  /** The names above. */
  public static final Set<String> RESERVED =
      Set.of(EVENT_ID, EVENT_TYPE, AGGREGATE_TYPE, AGGREGATE_ID, OCCURRED_AT);

  /** SNS and SQS accept at most 10 message attributes per message. */
  public static final int MAX_ATTRIBUTES = 10;

  /** How many headers an event may carry: what the reserved attributes leave of the 10. */
  public static final int MAX_HEADERS = MAX_ATTRIBUTES - 5;

  private OutboxMessageAttributes() {}
}
