package dev.lambdaoutbox.consumer;

import org.jdbi.v3.core.Handle;

/**
 * The consumer's work for one event. It runs inside the transaction that records the event in the
 * inbox, so writing to the database through {@code handle} commits exactly once with it.
 */
@FunctionalInterface
public interface InboundEventHandler {
  /**
   * Applies {@code event}. Throwing rolls back everything done through {@code handle} and reports
   * the record as failed, so SQS delivers it again; returning commits.
   *
   * <p>Do not commit, roll back or close {@code handle}: the consumer owns its transaction. Calls
   * to systems outside the database are not undone by a rollback and may be repeated on redelivery;
   * make them idempotent, e.g. with the event id.
   */
  void handle(Handle handle, InboundEvent event) throws Exception;
}
