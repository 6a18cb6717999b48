package dev.lambdaoutbox.store.model.audit;

import java.time.Instant;
import java.util.Set;
import java.util.UUID;

/**
 * Which audit entries an operator means. Every criterion is optional (null matches everything); the
 * ones given must all hold.
 *
 * @param deadLetterId entries about this dead letter (its event id)
 * @param requestedBy entries of this requester (the audit's actor, exactly as recorded)
 * @param requestId entries of one operator request (the id its report gave)
 * @param action one of {@link #ACTIONS}
 * @param from entries written at or after this time
 * @param to entries written before this time (exclusive)
 */
public record AuditFilter(
    UUID deadLetterId,
    String requestedBy,
    String requestId,
    String action,
    Instant from,
    Instant to) {

  /** The actions the audit table records. */
  public static final Set<String> ACTIONS =
      Set.of(
          AuditEntry.REPLAY,
          AuditEntry.DISCARD,
          AuditEntry.RETARGET,
          AuditEntry.DEAD_LETTER,
          AuditEntry.REWIND,
          AuditEntry.REDRIVE_CANARY,
          AuditEntry.REDRIVE,
          AuditEntry.REDRIVE_HOLD,
          AuditEntry.REDRIVE_RESUME);

  private static final AuditFilter ALL = new AuditFilter(null, null, null, null, null, null);

  public AuditFilter {
    if (action != null && !ACTIONS.contains(action)) {
      throw new IllegalArgumentException("action must be one of " + ACTIONS + ", not " + action);
    }
    if (from != null && to != null && !from.isBefore(to)) {
      throw new IllegalArgumentException("from " + from + " must be before to " + to);
    }
  }

  /** Every audit entry. */
  public static AuditFilter all() {
    return ALL;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** True when no criterion is set. */
  public boolean isEmpty() {
    return equals(ALL);
  }

  /** Builds an {@link AuditFilter}; unset criteria match everything. */
  public static final class Builder {
    private UUID deadLetterId;
    private String requestedBy;
    private String requestId;
    private String action;
    private Instant from;
    private Instant to;

    private Builder() {}

    public Builder deadLetterId(UUID deadLetterId) {
      this.deadLetterId = deadLetterId;
      return this;
    }

    public Builder requestedBy(String requestedBy) {
      this.requestedBy = requestedBy;
      return this;
    }

    public Builder requestId(String requestId) {
      this.requestId = requestId;
      return this;
    }

    public Builder action(String action) {
      this.action = action;
      return this;
    }

    public Builder from(Instant from) {
      this.from = from;
      return this;
    }

    public Builder to(Instant to) {
      this.to = to;
      return this;
    }

    public AuditFilter build() {
      return new AuditFilter(deadLetterId, requestedBy, requestId, action, from, to);
    }
  }
}
