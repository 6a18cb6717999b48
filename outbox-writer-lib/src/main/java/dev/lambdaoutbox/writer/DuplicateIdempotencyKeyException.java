package dev.lambdaoutbox.writer;

/**
 * An event's idempotency key is already held by another outbox row. Nothing was written, and the
 * caller's transaction is still usable: a retried request can look up what the first one produced
 * and answer with it.
 *
 * <p>The outbox enforces uniqueness only while the earlier row is still in the outbox table:
 * pending, or retained after sending when a retention period is configured.
 */
public final class DuplicateIdempotencyKeyException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final String idempotencyKey;

  public DuplicateIdempotencyKeyException(String idempotencyKey) {
    super("idempotencyKey: '" + idempotencyKey + "' is already used by another outbox event");
    this.idempotencyKey = idempotencyKey;
  }

  public String idempotencyKey() {
    return idempotencyKey;
  }
}
