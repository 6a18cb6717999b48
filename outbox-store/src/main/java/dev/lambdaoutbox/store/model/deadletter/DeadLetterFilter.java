package dev.lambdaoutbox.store.model.deadletter;

import java.time.Instant;

/**
 * Which dead letters an operator means. Every criterion is optional (null matches everything); the
 * ones given must all hold.
 *
 * @param deadFrom rows that died at or after this time
 * @param deadTo rows that died before this time (exclusive)
 */
public record DeadLetterFilter(
    String eventType,
    String aggregateType,
    String aggregateId,
    String errorCode,
    Instant deadFrom,
    Instant deadTo) {

  private static final DeadLetterFilter ALL =
      new DeadLetterFilter(null, null, null, null, null, null);

  public DeadLetterFilter {
    if (deadFrom != null && deadTo != null && !deadFrom.isBefore(deadTo)) {
      throw new IllegalArgumentException(
          "deadFrom " + deadFrom + " must be before deadTo " + deadTo);
    }
  }

  /** Every dead letter. */
  public static DeadLetterFilter all() {
    return ALL;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** True when no criterion is set, i.e. the filter matches the whole table. */
  public boolean isEmpty() {
    return equals(ALL);
  }

  public Builder toBuilder() {
    return new Builder()
        .eventType(eventType)
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .errorCode(errorCode)
        .deadFrom(deadFrom)
        .deadTo(deadTo);
  }

  /** Builds a {@link DeadLetterFilter}; unset criteria match everything. */
  public static final class Builder {
    private String eventType;
    private String aggregateType;
    private String aggregateId;
    private String errorCode;
    private Instant deadFrom;
    private Instant deadTo;

    private Builder() {}

    public Builder eventType(String eventType) {
      this.eventType = eventType;
      return this;
    }

    public Builder aggregateType(String aggregateType) {
      this.aggregateType = aggregateType;
      return this;
    }

    public Builder aggregateId(String aggregateId) {
      this.aggregateId = aggregateId;
      return this;
    }

    public Builder errorCode(String errorCode) {
      this.errorCode = errorCode;
      return this;
    }

    public Builder deadFrom(Instant deadFrom) {
      this.deadFrom = deadFrom;
      return this;
    }

    public Builder deadTo(Instant deadTo) {
      this.deadTo = deadTo;
      return this;
    }

    public DeadLetterFilter build() {
      return new DeadLetterFilter(
          eventType, aggregateType, aggregateId, errorCode, deadFrom, deadTo);
    }
  }
}
