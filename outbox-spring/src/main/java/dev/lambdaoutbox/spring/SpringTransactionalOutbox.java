package dev.lambdaoutbox.spring;

import dev.lambdaoutbox.core.OutboxException;
import dev.lambdaoutbox.writer.DuplicateIdempotencyKeyException;
import dev.lambdaoutbox.writer.InvalidOutboxEventException;
import dev.lambdaoutbox.writer.OutboxEvent;
import dev.lambdaoutbox.writer.OutboxWriter;
import dev.lambdaoutbox.writer.PollerWaker;
import dev.lambdaoutbox.writer.TransactionRequiredException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@link TransactionalOutbox}: the writer on the connection Spring bound to the transaction.
 */
final class SpringTransactionalOutbox implements TransactionalOutbox {
  private static final String REMEDY =
      "append from a @Transactional method (or inside TransactionTemplate.execute) whose"
          + " transaction manager manages this DataSource, so the outbox row commits or rolls back"
          + " with your own changes";

  private final DataSource dataSource;
  private final OutboxWriter writer;
  private final PollerWaker waker;
  private final LongAdder appended = new LongAdder();
  private final LongAdder refused = new LongAdder();
  private final LongAdder failed = new LongAdder();

  SpringTransactionalOutbox(DataSource dataSource, OutboxWriter writer, PollerWaker waker) {
    this.dataSource = dataSource;
    this.writer = writer;
    this.waker = waker;
  }

  @Override
  public void append(OutboxEvent event) {
    appendAll(List.of(event));
  }

  @Override
  public void appendAll(List<OutboxEvent> events) {
    try {
      requireWritableTransaction();
      Connection connection = DataSourceUtils.getConnection(dataSource);
      try {
        requireManaged(connection);
        writer.appendAll(connection, events);
      } finally {
        // Gives back the transaction's hold on it; the connection stays bound until completion.
        DataSourceUtils.releaseConnection(connection, dataSource);
      }
    } catch (TransactionRequiredException
        | InvalidOutboxEventException
        | DuplicateIdempotencyKeyException e) {
      refused.increment();
      throw e;
    } catch (RuntimeException e) {
      failed.increment();
      throw e;
    }
    appended.add(events.size());
    if (waker != null && !events.isEmpty()) {
      registerWakeUp();
    }
  }

  @Override
  public void wakeAfterCommit() {
    requireTransaction();
    if (waker != null) {
      registerWakeUp();
    }
  }

  @Override
  public Counts counts() {
    return new Counts(appended.sum(), refused.sum(), failed.sum());
  }

  private static void requireTransaction() {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new TransactionRequiredException(
          "no Spring transaction is active on this thread", REMEDY);
    }
  }

  private static void requireWritableTransaction() {
    requireTransaction();
    if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
      throw new TransactionRequiredException(
          "the Spring transaction on this thread is read-only",
          "append from a transaction that may write (@Transactional without readOnly = true)");
    }
  }

  /**
   * A transaction of another transaction manager (another DataSource's, or one that exposes no JDBC
   * connection) leaves this DataSource's connection in auto-commit: an append there would commit on
   * its own, apart from the business change.
   */
  private static void requireManaged(Connection connection) {
    boolean autoCommit;
    try {
      autoCommit = connection.getAutoCommit();
    } catch (SQLException e) {
      throw new OutboxException("could not read the connection's auto-commit mode", e);
    }
    if (autoCommit) {
      throw new TransactionRequiredException(
          "a Spring transaction is active on this thread, but it holds no connection of this"
              + " DataSource (its transaction manager manages another DataSource, or does not expose"
              + " its JDBC connection)",
          REMEDY);
    }
  }

  /** One wake-up per transaction, however many appends it makes. */
  private void registerWakeUp() {
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s instanceof WakeUpAfterCommit w && w.waker() == waker) {
        return;
      }
    }
    TransactionSynchronizationManager.registerSynchronization(new WakeUpAfterCommit(waker));
  }
}
