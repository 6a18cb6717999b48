package dev.lambdaoutbox.writer;

import java.util.Locale;

/**
 * What a database user does with the outbox tables; each needs its own privileges ({@link
 * OutboxGrants}).
 */
public enum OutboxRole {
  /**
   * The application: appends events ({@link OutboxWriter}, idempotency keys included), records
   * consumed messages ({@link Inbox}) and purges them ({@link InboxPurge}).
   */
  WRITER,
  /** The poller function: claims, publishes, retries, dead-letters, parks and purges. */
  POLLER,
  /** The dead-letter reprocessor function: lists, replays, discards and audits dead letters. */
  REPROCESSOR;

  /** The name operators type: {@code writer}, {@code poller}, {@code reprocessor}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
