package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxException;
import java.util.Objects;
import java.util.UUID;

/**
 * An event's idempotency key is already held by an earlier event. Nothing of the refused call was
 * written, and the caller's transaction is still usable: a retried request can look up what the
 * first one produced ({@link #firstEventId()}) and answer with it.
 *
 * <p>A key is held from the commit of the first event that used it until the poller's retention
 * pass purges it, once it is older than the idempotency window: at least the window, whether the
 * first event is still pending, published or dead-lettered.
 */
public final class DuplicateIdempotencyKeyException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final String idempotencyKey;
  private final UUID firstEventId;

  public DuplicateIdempotencyKeyException(String idempotencyKey, UUID firstEventId) {
    super(
        "idempotencyKey: '"
            + idempotencyKey
            + "' is already held by event "
            + firstEventId
            + "; nothing was written");
    this.idempotencyKey = Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    this.firstEventId = Objects.requireNonNull(firstEventId, "firstEventId");
  }

  public String idempotencyKey() {
    return idempotencyKey;
  }

  /** The id of the event that first used the key: what the first request produced. */
  public UUID firstEventId() {
    return firstEventId;
  }
}
