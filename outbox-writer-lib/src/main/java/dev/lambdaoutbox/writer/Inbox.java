package dev.lambdaoutbox.writer;

import dev.lambdaoutbox.core.OutboxMessageAttributes;
import dev.lambdaoutbox.core.OutboxTables;
import java.sql.Connection;
import java.util.Objects;
import org.jdbi.v3.core.Handle;

/**
 * The consumer side: runs a message's work at most once per consumer, however often the message is
 * delivered.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.create();
 * InboxResult result = jdbi.inTransaction(handle ->
 *     inbox.processOnce(handle, "shop-service", eventId, () -> reservations.insert(handle, payload)));
 * }</pre>
 *
 * <p>The message id is recorded in the caller's transaction before the work runs. A second delivery
 * of the same id, even one racing the first from another transaction, waits for the first to commit
 * and is then {@link InboxResult#SKIPPED}; if the first rolls back, the second processes it. Use
 * the {@code eventId} message attribute ({@link OutboxMessageAttributes#EVENT_ID}) as the message
 * id.
 *
 * <p>Recorded ids stay until an {@link InboxPurge} the application schedules deletes them, once
 * they are older than a window that must outlast every redelivery (15 days by default).
 */
public interface Inbox {
  /** The work to run once; it may throw, which rolls back with the caller's transaction. */
  @FunctionalInterface
  interface Work<X extends Exception> {
    void run() throws X;
  }

  /** An inbox on the default table, {@code inbox_processed_messages}. */
  static Inbox create() {
    return create(OutboxTables.defaults());
  }

  static Inbox create(OutboxTables tables) {
    return new JdbcInbox(Objects.requireNonNull(tables, "tables"), java.time.Clock.systemUTC());
  }

  /** Runs {@code work} unless {@code messageId} was already processed by {@code consumerName}. */
  <X extends Exception> InboxResult processOnce(
      Handle handle, String consumerName, String messageId, Work<X> work) throws X;

  /** Runs {@code work} unless {@code messageId} was already processed by {@code consumerName}. */
  <X extends Exception> InboxResult processOnce(
      Connection connection, String consumerName, String messageId, Work<X> work) throws X;
}
