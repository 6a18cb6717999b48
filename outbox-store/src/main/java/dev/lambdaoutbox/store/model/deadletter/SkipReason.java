package dev.lambdaoutbox.store.model.deadletter;

/** Why a requested dead letter was left alone. */
public enum SkipReason {
  /**
   * The id is not in the dead-letter table: it was replayed and delivered, discarded, or never
   * died.
   */
  NOT_DEAD(
      "not in the dead-letter table (already replayed and delivered, discarded, or never dead)"),
  /** An outbox row with the same id exists: it was already replayed and is waiting to be sent. */
  ALREADY_IN_OUTBOX("an outbox row with this id exists: it was already replayed"),
  /** Another outbox row holds the row's idempotency key, so the event cannot go back yet. */
  IDEMPOTENCY_KEY_TAKEN("another outbox row holds its idempotency key");

  private final String description;

  SkipReason(String description) {
    this.description = description;
  }

  /** A sentence an operator can act on. */
  public String description() {
    return description;
  }
}
