package dev.lambdaoutbox.writer;

/** What {@link Inbox#processOnce} did with a message. */
public enum InboxResult {
  /** First delivery: the work ran, and the message id was recorded in the same transaction. */
  PROCESSED,
  /** The message id was already recorded for this consumer: the work did not run. */
  SKIPPED
}
